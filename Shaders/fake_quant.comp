#version 450
// Fake quantisation (CKernels/fake_quant.c): y = (clamp(roundEven(x / scale) + zeroPoint, low,
// high) - zeroPoint) * scale, an ONNX QuantizeLinear and its DequantizeLinear in float32
// (fake_quant.glsl).
#extension GL_GOOGLE_include_directive : require
#include "fake_quant.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, plane; float scale, zeroPoint, low, high; } p;

void main() {
    uint channel = gl_WorkGroupID.y;
    for (uint k = 0u; k < 4u; k++) {
        uint i = 4u * gl_GlobalInvocationID.x + k;
        if (i >= p.plane) return;
        uint index = channel * p.plane + i;
        float x = texelFetch(source, int(p.sourceBase + index)).x;
        imageStore(destination, int(p.destinationBase + index), vec4(fakeQuantize(x, p.scale, p.zeroPoint, p.low, p.high)));
    }
}
