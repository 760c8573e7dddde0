#version 450
#extension GL_GOOGLE_include_directive : require
// Conditional instance normalisation written out in int8 QDQ ops (CKernels/quantized_instance_norm.c
// has the formulas): one workgroup per channel computes the channel's statistics (its mean, then
// the mean of the fake-quantised squared differences, each a strided share per invocation with
// Kahan compensation, added in a tree as global_average_pool.comp does), its scale and shift,
// and then applies them to the channel. Every quantiser is int8 (the host checks). The host
// picks the workgroup size, a power of two.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
layout(binding = 1) uniform samplerBuffer gammas;
layout(binding = 2) uniform samplerBuffer betas;
#include "storage_format.glsl"
layout(binding = 3, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    uint sourceBase, gammaBase, betaBase, destinationBase, plane, relu;
    float epsilon;
    float q[20];  // (scale, zero point) of FQ0..FQ9 (push constants are std430: stride 4)
} p;

shared float partial[1024];
shared float scaleShift[2];

float fq(float x, uint k) {
    float scale = p.q[2u * k], zeroPoint = p.q[2u * k + 1u];
    float t = clamp(roundEven(x / scale) + zeroPoint, -128.0, 127.0);
    return (t - zeroPoint) * scale;
}

float channelMean(uint base, bool squares, float m) {
    uint lane = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    precise float sum = 0.0, compensation = 0.0;
    for (uint i = lane; i < p.plane; i += size) {
        float x = texelFetch(source, int(base + i)).x;
        if (squares) {
            float d = x - m;
            x = fq(d * d, 1u);
        }
        precise float y = x - compensation;
        precise float t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
    partial[lane] = sum;
    barrier();
    for (uint half_ = size / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) partial[lane] += partial[lane + half_];
        barrier();
    }
    float mean = partial[0] / float(p.plane);
    barrier();
    return mean;
}

void main() {
    uint channel = gl_WorkGroupID.x, lane = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    uint base = p.sourceBase + channel * p.plane;
    float m = fq(channelMean(base, false, 0.0), 0u);
    float v = fq(channelMean(base, true, m), 2u);
    if (lane == 0u) {
        float e = fq(v + p.epsilon, 3u);
        float r = fq(1.0 / sqrt(e), 4u);
        float g = fq(r * texelFetch(gammas, int(p.gammaBase + channel)).x, 5u);
        scaleShift[0] = g;
        scaleShift[1] = fq(texelFetch(betas, int(p.betaBase + channel)).x - fq(m * g, 6u), 7u);
    }
    barrier();
    float g = scaleShift[0], b = scaleShift[1];
    for (uint i = lane; i < p.plane; i += size) {
        float y = fq(texelFetch(source, int(base + i)).x * g, 8u) + b;
        if (p.relu != 0u) y = max(y, 0.0);
        imageStore(destination, int(p.destinationBase + channel * p.plane + i), vec4(fq(y, 9u)));
    }
}
