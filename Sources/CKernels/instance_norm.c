// Instance norm (`instance_norm`: ExecutionPlan.InstanceNormStatistics / InstanceNormApply /
// InstanceNormMoments, Shaders/instance_norm_*.comp, CPU/InstanceNorm.swift, InstanceNormTests):
// memory-bound, compiled for AVX2+FMA and for the baseline instruction set like the convolution kernel.
#include "ckernels.h"
#include "simd.h"
#include <math.h>

#define ISA_TWINS_BODY "instance_norm_body.inc"
#include "isa_twins.h"

void gs_instance_norm_moments(const float *x, int64_t n, float shift, double *sum, double *squares) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { instance_norm_moments_avx2(x, n, shift, sum, squares); return; }
#endif
    instance_norm_moments_portable(x, n, shift, sum, squares);
}

void gs_instance_norm_apply(const float *x, int64_t n, float scale, float shift, int activation,
                            const float *residual, float *y) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { instance_norm_apply_avx2(x, n, scale, shift, activation, residual, y); return; }
#endif
    instance_norm_apply_portable(x, n, scale, shift, activation, residual, y);
}
