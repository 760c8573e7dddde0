// Fake quantisation of one value and of 8- and 16-float vectors, shared by fake_quant.c and the
// epilogues that fuse it into the step before (conv2d_graph_body.inc, activation.c): x / scale
// (a true division, as onnxruntime's QuantizeLinear) clamped to [low, high] (the integer range
// minus the zero point; NaN becomes low), rounded half to even by adding and subtracting
// 1.5 x 2^23 (exact below 2^22 in magnitude, which the clamp guarantees), times scale.
//
// The vectors clamp with __builtin_elementwise_max/min (IEEE maxNum/minNum: NaN gives the other
// operand, like the scalar `t > low ? t : low`); where the two could differ, on a zero's sign,
// the rounding step makes both +0. Contraction is off in each helper: the final product must be
// rounded to float before anything is added to it (a fused residual add), exactly as when
// fake_quant.c stores it and the next step reads it back.
#ifndef GPUSTYLE_FAKE_QUANT_H
#define GPUSTYLE_FAKE_QUANT_H
#include "simd.h"

#define GS_FAKE_QUANT_MAGIC 12582912.0f  // 1.5 x 2^23

static inline __attribute__((always_inline)) float gs_fake_quant_value(float x, float scale, float low, float high) {
#pragma clang fp contract(off)
    float t = x / scale;
    t = t > low ? t : low;
    t = t < high ? t : high;
    const float q = (t + GS_FAKE_QUANT_MAGIC) - GS_FAKE_QUANT_MAGIC;
    return q * scale;
}

/// The body of a vector helper over type T (by pointer: passing vectors by value changes the ABI
/// between the ISA copies).
#define GS_FAKE_QUANT_VECTOR(T)                                                              \
    {                                                                                        \
        _Pragma("clang fp contract(off)") const T zero = {0};                                \
        T t = *x / scale;                                                                    \
        t = __builtin_elementwise_min(__builtin_elementwise_max(t, zero + low), zero + high); \
        t = (t + GS_FAKE_QUANT_MAGIC) - GS_FAKE_QUANT_MAGIC;                                 \
        *x = t * scale;                                                                      \
    }
#endif
