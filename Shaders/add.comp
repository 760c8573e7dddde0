#version 450
// y = FQ(act(a + b)) over channel planes, laid out like activation.comp (see there); FQ is the
// fused fake quantisation (fake_quant.glsl; none when its scale is 0).
#extension GL_GOOGLE_include_directive : require
#include "activation.glsl"
#include "fake_quant.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer a;
layout(binding = 1) uniform samplerBuffer b;
#include "storage_format.glsl"
layout(binding = 2, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant, std430) uniform Push {
    uint aBase, bBase, destinationBase, plane, kind;
    float alpha, beta;
    float slopes[16];
    float qScale, qZeroPoint, qLow, qHigh;
} p;

void main() {
    uint channel = gl_WorkGroupID.y;
    float slope = p.kind == 7u ? p.slopes[min(channel, 15u)] : 0.0;
    for (uint k = 0u; k < 4u; k++) {
        uint i = 4u * gl_GlobalInvocationID.x + k;
        if (i >= p.plane) return;
        uint index = channel * p.plane + i;
        float x = texelFetch(a, int(p.aBase + index)).x + texelFetch(b, int(p.bBase + index)).x;
        float y = fakeQuantize(activate(x, p.kind, p.alpha, p.beta, slope), p.qScale, p.qZeroPoint, p.qLow, p.qHigh);
        imageStore(destination, int(p.destinationBase + index), vec4(y));
    }
}
