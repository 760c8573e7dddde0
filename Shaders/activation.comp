#version 450
// y = FQ(act(x)) over channel planes of `plane` floats, four floats per invocation, one channel per
// workgroup row (gl_WorkGroupID.y, so the PReLU slope is uniform); FQ is the fused fake
// quantisation (fake_quant.glsl; none when its scale is 0). Regions are bound from the 256-byte
// boundary at or before them; the bases say where they start in their binding. In place is
// allowed: each float is read and written by one invocation.
#extension GL_GOOGLE_include_directive : require
#include "activation.glsl"
#include "fake_quant.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant, std430) uniform Push {
    uint sourceBase, destinationBase, plane, kind;
    float alpha, beta;
    float slopes[16];  // PReLU: the slopes of this dispatch's channels (at most 16)
    float qScale, qZeroPoint, qLow, qHigh;
} p;

void main() {
    uint channel = gl_WorkGroupID.y;
    float slope = p.kind == 7u ? p.slopes[min(channel, 15u)] : 0.0;
    for (uint k = 0u; k < 4u; k++) {
        uint i = 4u * gl_GlobalInvocationID.x + k;
        if (i >= p.plane) return;
        uint index = channel * p.plane + i;
        float x = texelFetch(source, int(p.sourceBase + index)).x;
        float y = fakeQuantize(activate(x, p.kind, p.alpha, p.beta, slope), p.qScale, p.qZeroPoint, p.qLow, p.qHigh);
        imageStore(destination, int(p.destinationBase + index), vec4(y));
    }
}
