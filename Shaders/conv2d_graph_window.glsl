// One input row's window for a run of PX outputs (conv2d_graph_general.glsl,
// conv2d_graph_depthwise.glsl): the SPAN = (PX - 1) * SX + KW floats of the row from column
// xs = x0 * SX - padLeft, zeros outside the map. With VEC_INPUT (rows are whole vec4s) SPAN4
// aligned vec4 fetches from 4 floats before the run's first column, the first SHIFT of them
// dropped; else one fetch per float. `rowStart` is the window's first float in the input
// (row start + xs), `inside[s]` whether column xs + s lies in the map (the same for every row).
// Needs `inputs`, `p.inWidth`, `p.padLeft`, SPAN, SPAN4, SHIFT and VEC_INPUT declared first.
void loadWindow(int rowStart, bool rowInside, int x0, bool inside[SPAN], out float window[SPAN]) {
    if (VEC_INPUT) {
        float wide[SPAN4 * 4];
        [[unroll]] for (int q = 0; q < SPAN4; q++) {
            int x = x0 * SX - 4 + 4 * q;
            bool ok = rowInside && x >= 0 && x < p.inWidth;
            vec4 v = texelFetch(inputs, ok ? (rowStart + p.padLeft - 4) / 4 + q : 0);
            [[unroll]] for (int e = 0; e < 4; e++) wide[4 * q + e] = ok ? v[e] : 0.0;
        }
        [[unroll]] for (int s = 0; s < SPAN; s++) window[s] = wide[SHIFT + s];
    } else {
        [[unroll]] for (int s = 0; s < SPAN; s++) {
            bool ok = rowInside && inside[s];
            float v = texelFetch(inputs, ok ? rowStart + s : 0).r;
            window[s] = ok ? v : 0.0;
        }
    }
}
