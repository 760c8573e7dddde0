#version 450
// Micro-benchmark of one memory access kind per build (KIND), for the depthwise roofline on
// lavapipe (VulkanAccessCostTimingTests): every invocation makes `iterations` accesses of one
// kind at lane-varying addresses (neighbouring lanes on neighbouring elements, as a convolution's
// runs are) and keeps every loaded value alive in 4 sums, stored once at the end. KIND 0 does no
// access (the loop's own cost), 10 only multiply-adds.
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int KIND = 0;

layout(binding = 0) uniform samplerBuffer texelsR;      // 1: texelFetch R32F
layout(binding = 1) uniform samplerBuffer texelsRGBA;   // 2: texelFetch RGBA32F
layout(std140, binding = 2) uniform Uniforms { vec4 data[4096]; } ubo;  // 3: float, 4: vec4
layout(std430, binding = 3) buffer Floats { float floats[]; };          // 5: float load, 8: store
layout(std430, binding = 4) buffer Vec4s { vec4 vec4s[]; };             // 6: vec4 load, 9: store
layout(std430, binding = 5) writeonly buffer Pairs { u64vec2 pairs[]; };  // 7: u64vec2 store
layout(std430, binding = 5) writeonly buffer Words { uint64_t words[]; };  // 13: uint64 store
layout(binding = 6, rgba32f) uniform writeonly imageBuffer imageRGBA;  // 11: imageStore rgba32f
layout(binding = 7, r32f) uniform writeonly imageBuffer imageR;        // 12: imageStore r32f

layout(push_constant) uniform Push {
    uint iterations;  // a multiple of 8
    uint invocations; // in the dispatch
    float seed;
} p;

// Loads stay within 16384 floats (4096 vec4s, the 64 KiB a uniform buffer holds), stores
// within 2^18 elements: every kind runs from the cache.
const uint LOAD_MASK = 16383u, LOAD4_MASK = 4095u, STORE_MASK = 262143u;

void main() {
    uint id = gl_GlobalInvocationID.x;
    vec4 s[4] = vec4[4](vec4(p.seed), vec4(0.0), vec4(0.0), vec4(0.0));
    for (uint i = 0u; i < p.iterations; i += 8u) {
        [[unroll]] for (uint j = 0u; j < 8u; j++) {
            uint k = i + j;
            uint at = id + 64u * k;          // loads: lanes on neighbouring elements
            uint to = k * p.invocations + id;  // stores: every element once
            float v = float(k) + p.seed;
            switch (KIND) {
            case 1: s[j & 3u].x += texelFetch(texelsR, int(at & LOAD_MASK)).r; break;
            case 2: s[j & 3u] += texelFetch(texelsRGBA, int(at & LOAD4_MASK)); break;
            case 3: { uint f = at & LOAD_MASK; s[j & 3u].x += ubo.data[f >> 2][f & 3u]; break; }
            case 4: s[j & 3u] += ubo.data[at & LOAD4_MASK]; break;
            case 5: s[j & 3u].x += floats[at & LOAD_MASK]; break;
            case 6: s[j & 3u] += vec4s[at & LOAD4_MASK]; break;
            case 7: pairs[to & STORE_MASK] = u64vec2(packUint2x32(floatBitsToUint(vec2(v, v + 1.0))),
                                                     packUint2x32(floatBitsToUint(vec2(v + 2.0, v + 3.0)))); break;
            case 8: floats[to & STORE_MASK] = v; break;
            case 9: vec4s[to & STORE_MASK] = vec4(v, v + 1.0, v + 2.0, v + 3.0); break;
            case 10: s[j & 3u] = fma(s[j & 3u], vec4(0.999999), vec4(v)); break;
            case 11: imageStore(imageRGBA, int(to & STORE_MASK), vec4(v, v + 1.0, v + 2.0, v + 3.0)); break;
            case 12: imageStore(imageR, int(to & STORE_MASK), vec4(v)); break;
            case 13: words[to & STORE_MASK] = packUint2x32(floatBitsToUint(vec2(v, v + 1.0))); break;
            default: s[j & 3u].x += v; break;
            }
        }
    }
    vec4 t = (s[0] + s[1]) + (s[2] + s[3]);
    if (KIND < 7 || KIND == 10 || KIND == 0) floats[STORE_MASK + 1u + id] = t.x + t.y + t.z + t.w;
}
