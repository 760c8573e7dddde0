#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax over the channels of each pixel, one pixel per invocation: the maximum first, then
// exp(x - max) and its sum, then the division (numerically stable for any logits).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, plane, channels; } p;

void main() {
    uint pixel = gl_GlobalInvocationID.x;
    if (pixel >= p.plane) return;
    int source0 = int(p.sourceBase + pixel);
    float maximum = -3.402823466e38;
    for (uint c = 0u; c < p.channels; c++) maximum = max(maximum, texelFetch(source, source0 + int(c * p.plane)).x);
    float sum = 0.0;
    for (uint c = 0u; c < p.channels; c++) sum += exp(texelFetch(source, source0 + int(c * p.plane)).x - maximum);
    float scale = 1.0 / sum;
    for (uint c = 0u; c < p.channels; c++) {
        float e = exp(texelFetch(source, source0 + int(c * p.plane)).x - maximum);
        imageStore(destination, int(p.destinationBase + pixel + c * p.plane), vec4(e * scale));
    }
}
