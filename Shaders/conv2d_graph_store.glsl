// A run of PX consecutive outputs of one channel plane (conv2d_graph_pointwise.glsl,
// conv2d_graph_general.glsl, conv2d_graph_depthwise.glsl): `at` is the run's first output in
// the tensor, `valid` how many of the PX lie inside the row or plane. With VEC_OUTPUT the run
// starts on a vec4 and rows (or the plane) are whole vec4s, so a vec4 starting inside lies inside.
// Needs `outputs` and VEC_OUTPUT declared first; with GRAPH_U64_OUTPUT `outputs` is a storage
// buffer of u64vec2s (conv2d_graph_depthwise_u64.comp).
void storeRun(uint at, int valid, float v[PX]) {
#ifdef GRAPH_U64_OUTPUT
    // The run's vec4s as two 64-bit words each, into a storage buffer of u64vec2s.
    [[unroll]] for (int q = 0; q < PX / 4; q++) {
        if (4 * q >= valid) break;
        outputs[int(at >> 2) + q] = u64vec2(packUint2x32(floatBitsToUint(vec2(v[4 * q], v[4 * q + 1]))),
                                            packUint2x32(floatBitsToUint(vec2(v[4 * q + 2], v[4 * q + 3]))));
    }
#else
    if (VEC_OUTPUT) {
        [[unroll]] for (int q = 0; q < PX / 4; q++) {
            if (4 * q >= valid) break;
            imageStore(outputs, int(at >> 2) + q, vec4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]));
        }
    } else {
        [[unroll]] for (int i = 0; i < PX; i++) {
            if (i >= valid) break;
            imageStore(outputs, int(at + uint(i)), vec4(v[i]));
        }
    }
#endif
}

#ifndef GRAPH_WRITE_ONLY_OUTPUT
// The partial sums an earlier input-channel chunk stored for the run starting at output `first`
// of the plane that starts at `base` (ACCUMULATE): indices past `last` read `last` (their sums
// are never stored).
void loadRun(uint base, uint first, uint last, out float s[PX]) {
    if (VEC_OUTPUT) {
        [[unroll]] for (int q = 0; q < PX / 4; q++) {
            vec4 v = imageLoad(outputs, int((base + min(first + uint(4 * q), last)) >> 2));
            [[unroll]] for (int e = 0; e < 4; e++) s[4 * q + e] = v[e];
        }
    } else {
        [[unroll]] for (int i = 0; i < PX; i++) s[i] = imageLoad(outputs, int(base + min(first + uint(i), last))).x;
    }
}
#endif
