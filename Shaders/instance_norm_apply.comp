#version 450
// y = act(x * scale + shift) [+ residual, added after the activation], four floats per
// invocation. Channel planes are 64-float aligned, so the vec4 tail past H*W stays inside the
// plane (it computes garbage there that nobody reads). In place is allowed: every element is
// read and written by the same invocation.
//
// Tensors go through texel views and the scale/shift table through a uniform buffer: on
// lavapipe, storage-buffer accesses are per-invocation loops, several times slower.
#extension GL_GOOGLE_include_directive : require
#include "activation.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
// GPUSTYLE_FP16 (the "_f16" build) writes a 16-bit float view: fp16 activation storage.
#ifdef GPUSTYLE_FP16
layout(binding = 1, rgba16f) uniform writeonly imageBuffer destination;
#else
layout(binding = 1, rgba32f) uniform writeonly imageBuffer destination;
#endif
layout(binding = 2) uniform samplerBuffer residual;
layout(std140, binding = 3) uniform Table { vec4 table[1024]; };  // per layer: scale[32], shift[32]

layout(push_constant) uniform Push {
    uint planeStride4;   // plane stride in vec4s
    uint count4;         // ceil(H * W / 4)
    uint channelBase;    // first channel of this chunk (bindings start at it)
    uint tableOffset;    // layer * 64
    uint activation;     // 0 identity, 1 relu, 2 sigmoid
    uint hasResidual;
} p;

float tableAt(uint i) { return table[i >> 2][i & 3u]; }

void main() {
    uint i = gl_GlobalInvocationID.x;
    // From the workgroup ID, so the table loads are provably uniform (one scalar load each).
    uint channel = gl_WorkGroupID.y;
    if (i >= p.count4) return;
    uint c = p.channelBase + channel;
    float scale = tableAt(p.tableOffset + c);
    float shift = tableAt(p.tableOffset + 32u + c);
    int index = int(channel * p.planeStride4 + i);
    vec4 y = activate(texelFetch(source, index) * scale + shift, p.activation);
    if (p.hasResidual != 0u) y += texelFetch(residual, index);
    imageStore(destination, index, y);
}
