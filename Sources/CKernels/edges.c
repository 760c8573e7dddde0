// The rectangle detector's edge front on the CPU: the box downscale into three channels, the
// [1 4 6 4 1]/16 blur and the Sobel gradient keeping the strongest channel. Numerics are DetectEdges' definition and
// the GLSL kernels' (detect_blur, detect_gradient): every result is the same float, so the
// two paths give bit-identical edge maps. That rules out contracting a * b + c into an FMA,
// which the package otherwise allows (-ffp-contract=fast-honor-pragmas: plain "fast" would
// ignore this pragma).
#include "ckernels.h"
#include "simd.h"
#include <math.h>

#pragma clang fp contract(off)

typedef int32_t v8mask __attribute__((vector_size(32)));
// Lanes of a where the mask is set, of b elsewhere.
#define select8(mask, a, b) ((v8f)(((mask) & (v8mask)(a)) | (~(mask) & (v8mask)(b))))

// Horizontal blur tap at x with the row's ends clamped (the first and last two pixels).
static inline float blur_tap_clamped(const float *s, int w, int x) {
    const float a = s[x - 2 > 0 ? x - 2 : 0], b = s[x - 1 > 0 ? x - 1 : 0], c = s[x];
    const float d = s[x + 1 < w - 1 ? x + 1 : w - 1], e = s[x + 2 < w - 1 ? x + 2 : w - 1];
    return (a + e + 4 * (b + d) + 6 * c) * 0.0625f;
}

// One pixel's Sobel gradient of the strongest channel (the first one on ties).
static inline void sobel_pixel(const float *const channels[3], float *magnitude, float *gx, float *gy, int64_t i,
                               int w) {
    float best_m = 0, best_dx = 0, best_dy = 0;
    for (int k = 0; k < 3; k++) {
        const float *s = channels[k];
        const float dx = (s[i - w + 1] + 2 * s[i + 1] + s[i + w + 1]) - (s[i - w - 1] + 2 * s[i - 1] + s[i + w - 1]);
        const float dy = (s[i + w - 1] + 2 * s[i + w] + s[i + w + 1]) - (s[i - w - 1] + 2 * s[i - w] + s[i - w + 1]);
        const float m = sqrtf(dx * dx + dy * dy) * 0.125f;
        if (k == 0 || m > best_m) { best_m = m; best_dx = dx; best_dy = dy; }
    }
    magnitude[i] = best_m;
    gx[i] = best_dx * 0.125f;
    gy[i] = best_dy * 0.125f;
}

// One working pixel's three channels: the weighted sums over its scale x scale block, in
// row-major order, times 1 / scale².
static inline void downscale_pixel(const float *rgb, int src_width, int64_t plane, int scale, const float *wt,
                                   float *c0, float *c1, float *c2, int w, int x, int y, float norm) {
    float s0 = 0, s1 = 0, s2 = 0;
    for (int dy = 0; dy < scale; dy++) {
        const float *row = rgb + (int64_t)(y * scale + dy) * src_width + (int64_t)x * scale;
        for (int dx = 0; dx < scale; dx++) {
            const float r = row[dx], g = row[plane + dx], b = row[2 * plane + dx];
            s0 += (wt[0] * r + wt[1] * g) + wt[2] * b;
            s1 += (wt[3] * r + wt[4] * g) + wt[5] * b;
            s2 += (wt[6] * r + wt[7] * g) + wt[8] * b;
        }
    }
    c0[(int64_t)y * w + x] = s0 * norm;
    c1[(int64_t)y * w + x] = s1 * norm;
    c2[(int64_t)y * w + x] = s2 * norm;
}

#define ISA_TWINS_BODY "edges_body.inc"
#include "isa_twins.h"

void gs_edge_downscale_rows(const float *rgb, int src_width, int src_height, int scale, const float *weights,
                            float *c0, float *c1, float *c2, int width, int row_begin, int row_end) {
    const int64_t plane = (int64_t)src_width * src_height;
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) {
        downscale_rows_avx2(rgb, src_width, plane, scale, weights, c0, c1, c2, width, row_begin, row_end);
        return;
    }
#endif
    downscale_rows_portable(rgb, src_width, plane, scale, weights, c0, c1, c2, width, row_begin, row_end);
}

void gs_edge_blur_rows(const float *src, float *dst, int width, int row_begin, int row_end) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { blur_rows_avx2(src, dst, width, row_begin, row_end); return; }
#endif
    blur_rows_portable(src, dst, width, row_begin, row_end);
}

void gs_edge_blur_columns(const float *src, float *dst, int width, int height, int row_begin, int row_end) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { blur_columns_avx2(src, dst, width, height, row_begin, row_end); return; }
#endif
    blur_columns_portable(src, dst, width, height, row_begin, row_end);
}

void gs_edge_sobel_rows(const float *c0, const float *c1, const float *c2, float *magnitude, float *gx, float *gy,
                        int width, int row_begin, int row_end) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { sobel_rows_avx2(c0, c1, c2, magnitude, gx, gy, width, row_begin, row_end); return; }
#endif
    sobel_rows_portable(c0, c1, c2, magnitude, gx, gy, width, row_begin, row_end);
}
