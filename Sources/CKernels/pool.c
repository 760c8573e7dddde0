// Max pooling of the lowered graph steps (the global average is gs_instance_norm_moments' sum).
#include "ckernels.h"
#include <math.h>
#include <stdlib.h>

void gs_max_pool_rows(const float *x, int in_height, int in_width, float *y, int out_width,
                      int kernel, int stride, int pad_top, int pad_left, int row_begin, int row_end) {
    // The window's rows reduced to one row first (contiguous, vectorised), then the columns:
    // 3x3/2 on 32x256x256 took 3.0-4.0 ms with the whole window per output, 0.94 ms so.
    // Windows are clipped to the map, so padded cells never win.
    float *column_max = malloc(sizeof(float) * (size_t)in_width);
    if (!column_max) abort();
    for (int oy = row_begin; oy < row_end; oy++) {
        int y0 = oy * stride - pad_top, y1 = y0 + kernel;
        if (y0 < 0) y0 = 0;
        if (y1 > in_height) y1 = in_height;
        for (int i = 0; i < in_width; i++) column_max[i] = -INFINITY;
        for (int sy = y0; sy < y1; sy++) {
            const float *row = x + (int64_t)sy * in_width;
            for (int i = 0; i < in_width; i++) column_max[i] = row[i] > column_max[i] ? row[i] : column_max[i];
        }
        // Windows inside the row, [inner_begin, inner_end): one pass per tap over all of them
        // (contiguous for stride 1, so vectorised; the text detector's 2x2/1 pool at 272x480
        // took 12 ms with a clipped loop per output); the windows at the edges clipped.
        float *out = y + (int64_t)oy * out_width;
        int inner_begin = (pad_left + stride - 1) / stride, inner_end = (in_width - kernel + pad_left) / stride + 1;
        if (in_width - kernel + pad_left < 0) inner_end = 0;
        if (inner_begin > out_width) inner_begin = out_width;
        if (inner_end > out_width) inner_end = out_width;
        if (inner_end < inner_begin) inner_end = inner_begin;
        const float *base = column_max - pad_left;
        for (int ox = inner_begin; ox < inner_end; ox++) out[ox] = -INFINITY;
        for (int k = 0; k < kernel; k++) {
            if (stride == 1) {
                for (int ox = inner_begin; ox < inner_end; ox++) out[ox] = base[ox + k] > out[ox] ? base[ox + k] : out[ox];
            } else {
                for (int ox = inner_begin; ox < inner_end; ox++) {
                    const float v = base[ox * stride + k];
                    out[ox] = v > out[ox] ? v : out[ox];
                }
            }
        }
        for (int ox = 0; ox < out_width; ox++) {
            if (ox == inner_begin) ox = inner_end;
            if (ox >= out_width) break;
            int x0 = ox * stride - pad_left, x1 = x0 + kernel;
            if (x0 < 0) x0 = 0;
            if (x1 > in_width) x1 = in_width;
            float best = -INFINITY;
            for (int sx = x0; sx < x1; sx++) best = column_max[sx] > best ? column_max[sx] : best;
            out[ox] = best;
        }
    }
    free(column_max);
}
