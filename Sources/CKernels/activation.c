// Elementwise activation and add + activation of the lowered graph steps.
//
// The kind is hoisted out of the loop so each copy of gs_activate is constant-folded and
// auto-vectorised. Most kinds are memory-bound either way (4M floats on this Zen 4: 14-16 GB/s
// read + write portable, 15-18 GB/s AVX2, memcpy 17-20 GB/s), but the sigmoid's exp is not:
// 0.42 GB/s portable, 1.5 GB/s in the AVX2 copy, hence the ISA twins (isa_twins.h).
#include "ckernels.h"
#include "activation.h"
#include "simd.h"

#define ISA_TWINS_BODY "activation_body.inc"
#include "isa_twins.h"

void gs_activation(const float *x, const float *b, int64_t n, int kind, float alpha, float beta, float slope,
                   float *y) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { activation_avx2(x, b, n, kind, alpha, beta, slope, y); return; }
#endif
    activation_portable(x, b, n, kind, alpha, beta, slope, y);
}
