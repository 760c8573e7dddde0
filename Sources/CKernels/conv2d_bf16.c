// The style network's direct convolution in bf16 (gs_conv2d_banded_bf16 in ckernels.h): the
// micro-kernel of conv2d_body.inc with CONV_BF16, its input channels taken in pairs, compiled as
// four twins: VDPBF16PS (AVX512_BF16) and its emulation in the avx512, avx2 and portable twins.
#include "ckernels.h"
#include "conv2d_internal.h"
#include "bf16.h"
#include "simd.h"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

int64_t gs_conv_bf16_packed_count(int cout, int cin, int kernel) {
    const int blocks = (cout + GS_CONV_CHANNEL_BLOCK - 1) / GS_CONV_CHANNEL_BLOCK;
    return (int64_t)blocks * ((cin + 1) / 2) * kernel * kernel * GS_CONV_CHANNEL_BLOCK;
}

void gs_conv_bf16_pack_weights(const float *weights, int cout, int cin, int kernel, uint32_t *packed) {
    const int taps = kernel * kernel, pairs = (cin + 1) / 2;
    const int blocks = (cout + GS_CONV_CHANNEL_BLOCK - 1) / GS_CONV_CHANNEL_BLOCK;
    for (int b = 0; b < blocks; b++)
        for (int p = 0; p < pairs; p++)
            for (int t = 0; t < taps; t++)
                for (int c = 0; c < GS_CONV_CHANNEL_BLOCK; c++) {
                    const int co = b * GS_CONV_CHANNEL_BLOCK + c, ci = 2 * p;
                    const float lo = co < cout ? weights[((int64_t)co * cin + ci) * taps + t] : 0.0f;
                    const float hi = co < cout && ci + 1 < cin ? weights[((int64_t)co * cin + ci + 1) * taps + t] : 0.0f;
                    *packed++ = gs_bf16_pair(lo, hi);
                }
}

float gs_bf16_round(float x) { return gs_bf16_low(gs_bf16_bits(x)); }

#define CONV_BF16
#define ISA_TWINS_BODY "conv2d_body.inc"
#define ISA_TWINS_AVX512
#define ISA_TWINS_AVX512BF16
#include "isa_twins.h"
#undef CONV_BF16

gs_conv_bf16_fn gs_conv_bf16_selected(void) {
#if defined(__x86_64__)
    if (gs_has_avx512_bf16()) return conv2d_rows_bf16_avx512bf16;
    if (gs_has_avx512()) return conv2d_rows_bf16_avx512;
    if (gs_has_avx2_fma()) return conv2d_rows_bf16_avx2;
#endif
    return conv2d_rows_bf16_portable;
}

void gs_bf16_pack_pairs(const float *lo, const float *hi, int n, uint32_t *dst) {
#if defined(__x86_64__)
    if (gs_has_avx512_bf16()) { pack_pairs_bf16_avx512bf16(lo, hi, n, dst); return; }
    if (gs_has_avx512()) { pack_pairs_bf16_avx512(lo, hi, n, dst); return; }
    if (gs_has_avx2_fma()) { pack_pairs_bf16_avx2(lo, hi, n, dst); return; }
#endif
    pack_pairs_bf16_portable(lo, hi, n, dst);
}
