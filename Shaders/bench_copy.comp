#version 450
// Profiler micro-benchmark: copy bandwidth through the same texel views the network's shaders
// use (uniform texel buffer in, storage texel buffer out), one vec4 per invocation.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
layout(binding = 1, rgba32f) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    uint count4;
    uint rowLength;  // invocations per row of the 2D dispatch (groups.x * 64)
} p;

void main() {
    uint i = gl_GlobalInvocationID.y * p.rowLength + gl_GlobalInvocationID.x;
    if (i >= p.count4) return;
    imageStore(destination, int(i), texelFetch(source, int(i)));
}
