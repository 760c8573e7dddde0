// A run of PX consecutive outputs of one channel plane (conv2d_graph_pointwise.glsl,
// conv2d_graph_general.glsl, conv2d_graph_winograd.glsl, conv2d_graph_depthwise.glsl): `at` is
// the run's first output in the tensor, `valid` how many of the PX lie inside the row or plane.
// With VEC_OUTPUT the run starts on a vec4 and rows (or the plane) are whole vec4s, so a vec4
// starting inside lies inside. Needs `outputs` and VEC_OUTPUT declared first; in the
// GRAPH_U64_OUTPUT builds (the "_u64" shaders: fp32 output, shaderInt64) `outputs` is a storage
// buffer of u64vec2s and each vec4 of a run is stored as two 64-bit words (pairs of floats):
// lavapipe runs a storage texel store as one loop over the SIMD lanes per 32-bit word and a
// storage-buffer store as one loop per store (VulkanBackend.graphStoresU64).
//
// GRAPH_STORE_RUN(name, target) defines `void name(uint at, int valid, float v[PX])` storing to
// the binding `target` (declared like `outputs`): storeRun stores to `outputs`, and
// conv2d_graph_pointwise.glsl's storeSums (KEEP_SUM) to its second output binding.
#ifdef GRAPH_U64_OUTPUT
#define GRAPH_STORE_RUN(name, target) \
void name(uint at, int valid, float v[PX]) { \
    [[unroll]] for (int q = 0; q < PX / 4; q++) { \
        if (4 * q >= valid) break; \
        target[int(at >> 2) + q] = u64vec2(packUint2x32(floatBitsToUint(vec2(v[4 * q], v[4 * q + 1]))), \
                                           packUint2x32(floatBitsToUint(vec2(v[4 * q + 2], v[4 * q + 3])))); \
    } \
}
#elif defined(GRAPH_PAIR_OUTPUT)
// The "_pairs" builds (conv2d_graph_depthwise_pairs: fp32 output, rows of an even width on an
// even offset, shaderInt64): `outputs` is a storage buffer of uint64s and each pair of a run is
// one 64-bit store, one lane loop per pair instead of an R32F texel store's one per float.
#define GRAPH_STORE_RUN(name, target) \
void name(uint at, int valid, float v[PX]) { \
    [[unroll]] for (int q = 0; q < PX / 2; q++) { \
        if (2 * q >= valid) break; \
        target[int(at >> 1) + q] = packUint2x32(floatBitsToUint(vec2(v[2 * q], v[2 * q + 1]))); \
    } \
}
#else
#define GRAPH_STORE_RUN(name, target) \
void name(uint at, int valid, float v[PX]) { \
    if (VEC_OUTPUT) { \
        [[unroll]] for (int q = 0; q < PX / 4; q++) { \
            if (4 * q >= valid) break; \
            imageStore(target, int(at >> 2) + q, vec4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3])); \
        } \
    } else { \
        [[unroll]] for (int i = 0; i < PX; i++) { \
            if (i >= valid) break; \
            imageStore(target, int(at + uint(i)), vec4(v[i])); \
        } \
    } \
}
#endif

GRAPH_STORE_RUN(storeRun, outputs)

#ifndef GRAPH_WRITE_ONLY_OUTPUT
#ifdef GRAPH_PAIR_OUTPUT
#error "the pair stores are write-only"
#endif
// The partial sums an earlier input-channel chunk stored for the run starting at output `first`
// of the plane that starts at `base` (ACCUMULATE): indices past `last` read `last` (their sums
// are never stored).
void loadRun(uint base, uint first, uint last, out float s[PX]) {
#ifdef GRAPH_U64_OUTPUT
    [[unroll]] for (int q = 0; q < PX / 4; q++) {
        u64vec2 w = outputs[int((base + min(first + uint(4 * q), last)) >> 2)];
        vec2 a = uintBitsToFloat(unpackUint2x32(w.x)), b = uintBitsToFloat(unpackUint2x32(w.y));
        s[4 * q] = a.x; s[4 * q + 1] = a.y; s[4 * q + 2] = b.x; s[4 * q + 3] = b.y;
    }
#else
    if (VEC_OUTPUT) {
        [[unroll]] for (int q = 0; q < PX / 4; q++) {
            vec4 v = imageLoad(outputs, int((base + min(first + uint(4 * q), last)) >> 2));
            [[unroll]] for (int e = 0; e < 4; e++) s[4 * q + e] = v[e];
        }
    } else {
        [[unroll]] for (int i = 0; i < PX; i++) s[i] = imageLoad(outputs, int(base + min(first + uint(i), last))).x;
    }
#endif
}
#endif
