// Integer-scale resize of one channel plane: nearest (ONNX nearest, asymmetric, floor) or
// bilinear with half-pixel centres and edge clamping (ONNX linear half_pixel; torch
// interpolate align_corners=False).
#include "ckernels.h"

// Source index and weight of output coordinate o along one axis (bilinear).
static inline void bilinear_tap(int o, int scale, int size, int *i0, int *i1, float *w) {
    float s = ((float)o + 0.5f) / (float)scale - 0.5f;
    if (s < 0) s = 0;
    int i = (int)s;  // s >= 0: truncation is floor
    *i0 = i;
    *i1 = i + 1 < size ? i + 1 : size - 1;
    *w = s - (float)i;
}

void gs_resize_rows(const float *x, int in_height, int in_width, int scale, int mode, float *y,
                    int row_begin, int row_end) {
    const int out_width = in_width * scale;
    for (int oy = row_begin; oy < row_end; oy++) {
        float *out = y + (int64_t)oy * out_width;
        if (mode == 0) {
            const float *row = x + (int64_t)(oy / scale) * in_width;
            for (int ox = 0; ox < out_width; ox++) out[ox] = row[ox / scale];
            continue;
        }
        int y0, y1;
        float wy;
        bilinear_tap(oy, scale, in_height, &y0, &y1, &wy);
        const float *r0 = x + (int64_t)y0 * in_width, *r1 = x + (int64_t)y1 * in_width;
        for (int ox = 0; ox < out_width; ox++) {
            int x0, x1;
            float wx;
            bilinear_tap(ox, scale, in_width, &x0, &x1, &wx);
            float top = r0[x0] + (r0[x1] - r0[x0]) * wx;
            float bottom = r1[x0] + (r1[x1] - r1[x0]) * wx;
            out[ox] = top + (bottom - top) * wy;
        }
    }
}
