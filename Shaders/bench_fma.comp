#version 450
// Profiler micro-benchmark: FMA throughput. Each invocation advances 8 independent vec4 FMA
// chains `iterations` times (32 FMAs = 64 flops per iteration) and stores one float so the
// work is not eliminated. Keep iterations well under 65535 (lavapipe's per-invocation loop cap).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0, r32f) uniform writeonly imageBuffer sink;

layout(push_constant) uniform Push {
    uint iterations;
    float seed;
} p;

void main() {
    uint id = gl_GlobalInvocationID.x;
    float s = p.seed + float(id) * 1e-9;
    vec4 a0 = vec4(s), a1 = vec4(s + 1.0), a2 = vec4(s + 2.0), a3 = vec4(s + 3.0);
    vec4 a4 = vec4(s + 4.0), a5 = vec4(s + 5.0), a6 = vec4(s + 6.0), a7 = vec4(s + 7.0);
    const vec4 m = vec4(0.999999), b = vec4(1e-7);
    for (uint i = 0u; i < p.iterations; i++) {
        a0 = fma(a0, m, b); a1 = fma(a1, m, b); a2 = fma(a2, m, b); a3 = fma(a3, m, b);
        a4 = fma(a4, m, b); a5 = fma(a5, m, b); a6 = fma(a6, m, b); a7 = fma(a7, m, b);
    }
    vec4 t = (a0 + a1) + (a2 + a3) + (a4 + a5) + (a6 + a7);
    imageStore(sink, int(id), vec4(t.x + t.y + t.z + t.w));
}
