// The depthwise sums of one channel for PY rows x PX outputs (conv2d_graph_depthwise.glsl, and
// conv2d_graph_dwpw.glsl for each expanded channel): each of the ROWS input rows of the window
// (loadWindow) is tap row ky = r - SY * oy of output row oy. `planeStart` is the channel's
// first float in the input, `iy0` and `xs` the window's first row and column, `wt` the
// channel's KH x KW taps, `acc` PY * PX floats. A macro, not a function: arrays sized by
// specialization constants do not match a function's parameter types in glslang. Needs
// conv2d_graph_window.glsl and PY, PX, KH, KW, SY, SX, ROWS and SPAN declared first.
#define GRAPH_DEPTHWISE_SUMS(planeStart, iy0, xs, x0, inside, wt, acc) \
    [[unroll]] for (int r = 0; r < ROWS; r++) { \
        int iy = (iy0) + r; \
        float window[SPAN]; \
        loadWindow((planeStart) + iy * p.inWidth + (xs), iy >= 0 && iy < p.inHeight, (x0), inside, window); \
        [[unroll]] for (int oy = 0; oy < PY; oy++) { \
            int ky = r - SY * oy; \
            if (ky < 0 || ky >= KH) continue; \
            [[unroll]] for (int kx = 0; kx < KW; kx++) \
                [[unroll]] for (int i = 0; i < PX; i++) \
                    acc[oy * PX + i] = fma(window[i * SX + kx], wt[ky * KW + kx], acc[oy * PX + i]); \
        } \
    }
