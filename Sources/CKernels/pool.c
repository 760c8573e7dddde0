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
        for (int ox = 0; ox < out_width; ox++) {
            int x0 = ox * stride - pad_left, x1 = x0 + kernel;
            if (x0 < 0) x0 = 0;
            if (x1 > in_width) x1 = in_width;
            float best = -INFINITY;
            for (int sx = x0; sx < x1; sx++) best = column_max[sx] > best ? column_max[sx] : best;
            y[(int64_t)oy * out_width + ox] = best;
        }
    }
    free(column_max);
}
