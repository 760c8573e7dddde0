// Pooling of the lowered graph steps: global average (a sum per channel plane) and max pooling.
#include "ckernels.h"
#include <math.h>

double gs_plane_sum(const float *x, int64_t n) {
    // Eight float lanes over runs of 4096 floats (vectorised, each lane sums 512 values), runs
    // combined in double: the error stays that of a 512-term float sum however large the plane.
    double total = 0;
    const int64_t run = 4096;
    for (int64_t start = 0; start < n; start += run) {
        const int64_t end = start + run < n ? start + run : n;
        float lanes[8] = {0};
        int64_t i = start;
        for (; i + 8 <= end; i += 8) {
            for (int k = 0; k < 8; k++) lanes[k] += x[i + k];
        }
        float tail = 0;
        for (; i < end; i++) tail += x[i];
        double partial = tail;
        for (int k = 0; k < 8; k++) partial += lanes[k];
        total += partial;
    }
    return total;
}

void gs_max_pool_rows(const float *x, int in_height, int in_width, float *y, int out_width,
                      int kernel, int stride, int pad_top, int pad_left, int row_begin, int row_end) {
    for (int oy = row_begin; oy < row_end; oy++) {
        // The window clipped to the map: padded cells never win.
        int y0 = oy * stride - pad_top, y1 = y0 + kernel;
        if (y0 < 0) y0 = 0;
        if (y1 > in_height) y1 = in_height;
        for (int ox = 0; ox < out_width; ox++) {
            int x0 = ox * stride - pad_left, x1 = x0 + kernel;
            if (x0 < 0) x0 = 0;
            if (x1 > in_width) x1 = in_width;
            float best = -INFINITY;
            for (int sy = y0; sy < y1; sy++) {
                const float *row = x + (int64_t)sy * in_width;
                for (int sx = x0; sx < x1; sx++) best = row[sx] > best ? row[sx] : best;
            }
            y[(int64_t)oy * out_width + ox] = best;
        }
    }
}
