// Memory-bound CPU kernels (padding gather, instance-norm moments and apply), compiled for
// AVX2+FMA and for the baseline instruction set like the convolution kernel.
#include "ckernels.h"
#include "simd.h"
#include <math.h>

#define ISA_TWINS_BODY "elementwise_body.inc"
#include "isa_twins.h"

void gs_gather_row(const float *src, const int32_t *columns, int count, float *dst) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { gather_row_avx2(src, columns, count, dst); return; }
#endif
    gather_row_portable(src, columns, count, dst);
}

void gs_shifted_moments(const float *x, int64_t n, float shift, double *sum, double *squares) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { shifted_moments_avx2(x, n, shift, sum, squares); return; }
#endif
    shifted_moments_portable(x, n, shift, sum, squares);
}

void gs_affine_activation(const float *x, int64_t n, float scale, float shift, int activation,
                          const float *residual, float *y) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { affine_activation_avx2(x, n, scale, shift, activation, residual, y); return; }
#endif
    affine_activation_portable(x, n, scale, shift, activation, residual, y);
}
