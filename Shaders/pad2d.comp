#version 450
#extension GL_GOOGLE_include_directive : require
// Zero or reflection padding (numpy 'reflect': the edge is not repeated), one output float per
// invocation (x, y, channel).
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    uint sourceBase, destinationBase, inWidth, inHeight, outWidth, outHeight, top, left, reflectMode;
} p;

int reflectIndex(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    return i;
}

void main() {
    uint ox = gl_GlobalInvocationID.x, oy = gl_GlobalInvocationID.y, channel = gl_GlobalInvocationID.z;
    if (ox >= p.outWidth || oy >= p.outHeight) return;
    int sy = int(oy) - int(p.top), sx = int(ox) - int(p.left);
    float value = 0.0;
    if (p.reflectMode != 0u) {
        sy = reflectIndex(sy, int(p.inHeight));
        sx = reflectIndex(sx, int(p.inWidth));
    }
    if (sy >= 0 && sy < int(p.inHeight) && sx >= 0 && sx < int(p.inWidth)) {
        value = texelFetch(source, int(p.sourceBase + channel * p.inWidth * p.inHeight) + sy * int(p.inWidth) + sx).x;
    }
    imageStore(destination, int(p.destinationBase + (channel * p.outHeight + oy) * p.outWidth + ox), vec4(value));
}
