// bf16 (the upper half of an fp32) for the bf16 convolution kernels: rounding to nearest even
// and the two halves of a pair. A pair is one 32-bit word holding two bf16 values, the low half
// first, as VDPBF16PS reads them.
#ifndef GPUSTYLE_BF16_H
#define GPUSTYLE_BF16_H
#include <stdint.h>
#include <string.h>

/// Unsigned 32-bit vectors (logical shifts, wrapping sums) of 16 and 8 lanes.
typedef uint32_t gs_u32x16 __attribute__((vector_size(64)));
typedef uint32_t gs_u32x8 __attribute__((vector_size(32)));

/// x rounded to the nearest bf16 (ties to even), as its 16 bits. NaN stays NaN.
static inline uint32_t gs_bf16_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (u >> 16) | 0x40u;
    return (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
}

/// The word holding bf16(lo) in its low half and bf16(hi) in its high half.
static inline uint32_t gs_bf16_pair(float lo, float hi) { return gs_bf16_bits(lo) | gs_bf16_bits(hi) << 16; }

/// The pair's high and low values as fp32 (exact).
static inline float gs_bf16_high(uint32_t pair) {
    const uint32_t u = pair & 0xFFFF0000u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline float gs_bf16_low(uint32_t pair) {
    const uint32_t u = pair << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#endif
