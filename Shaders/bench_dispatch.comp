#version 450
// Profiler micro-benchmark: the per-dispatch floor. One workgroup of one invocation stores one
// float; the descriptor set around it (1 or 4 texel/uniform bindings, binding 0 the output) is
// what the dispatch benchmark varies (VulkanDispatchFloorTimingTests).
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0, r32f) uniform writeonly imageBuffer sink;

layout(push_constant) uniform Push { float value; } p;

void main() {
    imageStore(sink, 0, vec4(p.value));
}
