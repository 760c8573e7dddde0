#version 450
#extension GL_GOOGLE_include_directive : require
// Integer-scale resize, one output float per invocation (x, y, channel): mode 0 nearest (source
// floor(o / scale), ONNX nearest asymmetric floor), 1 bilinear with half-pixel centres and
// clamped edges (ONNX linear half_pixel; torch align_corners=False). CKernels/resize.c twin.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, inWidth, inHeight, scale, mode; } p;

// Source index pair and weight of output coordinate o along an axis of `size` samples.
void tap(uint o, uint size, out int i0, out int i1, out float w) {
    float s = max((float(o) + 0.5) / float(p.scale) - 0.5, 0.0);
    i0 = int(s);
    i1 = min(i0 + 1, int(size) - 1);
    w = s - float(i0);
}

void main() {
    uint ox = gl_GlobalInvocationID.x, oy = gl_GlobalInvocationID.y, channel = gl_GlobalInvocationID.z;
    uint outWidth = p.inWidth * p.scale, outHeight = p.inHeight * p.scale;
    if (ox >= outWidth || oy >= outHeight) return;
    int plane = int(p.sourceBase + channel * p.inWidth * p.inHeight);
    int width = int(p.inWidth);
    float value;
    if (p.mode == 0u) {
        value = texelFetch(source, plane + int(oy / p.scale) * width + int(ox / p.scale)).x;
    } else {
        int x0, x1, y0, y1;
        float wx, wy;
        tap(ox, p.inWidth, x0, x1, wx);
        tap(oy, p.inHeight, y0, y1, wy);
        float a = texelFetch(source, plane + y0 * width + x0).x, b = texelFetch(source, plane + y0 * width + x1).x;
        float c = texelFetch(source, plane + y1 * width + x0).x, d = texelFetch(source, plane + y1 * width + x1).x;
        float top = a + (b - a) * wx, bottom = c + (d - c) * wx;
        value = top + (bottom - top) * wy;
    }
    imageStore(destination, int(p.destinationBase + (channel * outHeight + oy) * outWidth + ox), vec4(value));
}
