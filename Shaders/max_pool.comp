#version 450
#extension GL_GOOGLE_include_directive : require
// Max pooling, one output float per invocation (x, y, channel); the window is clipped to the
// map, so padded cells never win.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    uint sourceBase, destinationBase, inWidth, inHeight, outWidth, outHeight, kernel, stride;
    int padTop, padLeft;
} p;

void main() {
    uint ox = gl_GlobalInvocationID.x, oy = gl_GlobalInvocationID.y, channel = gl_GlobalInvocationID.z;
    if (ox >= p.outWidth || oy >= p.outHeight) return;
    int y0 = int(oy * p.stride) - p.padTop, x0 = int(ox * p.stride) - p.padLeft;
    int y1 = min(y0 + int(p.kernel), int(p.inHeight)), x1 = min(x0 + int(p.kernel), int(p.inWidth));
    y0 = max(y0, 0);
    x0 = max(x0, 0);
    uint plane = p.inWidth * p.inHeight;
    float best = -3.402823466e38;
    for (int sy = y0; sy < y1; sy++) {
        int row = int(p.sourceBase + channel * plane) + sy * int(p.inWidth);
        for (int sx = x0; sx < x1; sx++) best = max(best, texelFetch(source, row + sx).x);
    }
    imageStore(destination, int(p.destinationBase + (channel * p.outHeight + oy) * p.outWidth + ox), vec4(best));
}
