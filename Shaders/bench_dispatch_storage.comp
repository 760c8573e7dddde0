#version 450
// Profiler micro-benchmark: bench_dispatch.comp with a storage buffer instead of a storage
// texel view as binding 0 (the dispatch benchmark binds 1 or 4 storage buffers).
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;

layout(std430, binding = 0) writeonly buffer Sink { float sink[]; };

layout(push_constant) uniform Push { float value; } p;

void main() {
    sink[0] = p.value;
}
