// The inverted residual block's channel-blocked passes with bf16 1x1 convolutions
// (gs_inverted_residual_run_bf16): inverted_residual_blocked_body.inc and conv2d_blocked_body.inc
// compiled with BK_BF16, as four twins: VDPBF16PS (AVX512_BF16) and its emulation in the avx512,
// avx2 and portable twins (tests: the library runs bf16 only where the CPU has the instruction).
#include "inverted_residual.h"
#include "activation.h"
#include "bf16.h"
#include "conv2d_internal.h"
#include "fake_quant.h"
#include "simd.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

int64_t gs_inverted_residual_bf16_packed_count(int out_channels, int in_channels) {
    return (int64_t)(out_channels + GS_CO_BLOCK - 1) / GS_CO_BLOCK * ((in_channels + 1) / 2) * GS_CO_BLOCK;
}

void gs_inverted_residual_bf16_pack(const float *prepared, int out_channels, int in_channels, uint32_t *packed) {
    const int blocks = (out_channels + GS_CO_BLOCK - 1) / GS_CO_BLOCK, pairs = (in_channels + 1) / 2;
    for (int b = 0; b < blocks; b++) {
        const float *block = prepared + (int64_t)b * in_channels * GS_CO_BLOCK;
        for (int k = 0; k < pairs; k++)
            for (int c = 0; c < GS_CO_BLOCK; c++) {
                const float hi = 2 * k + 1 < in_channels ? block[(2 * k + 1) * GS_CO_BLOCK + c] : 0.0f;
                *packed++ = gs_bf16_pair(block[2 * k * GS_CO_BLOCK + c], hi);
            }
    }
}

#define BK_BF16
#define ISA_TWINS_BODY "inverted_residual_bf16_body.inc"
#define ISA_TWINS_AVX512
#define ISA_TWINS_AVX512BF16
#include "isa_twins.h"
#undef BK_BF16

void gs_inverted_residual_run_bf16(const gs_inverted_residual_params *p, const float *input,
                                   const uint32_t *expand_weights, const float *depthwise_weights,
                                   const uint32_t *project_weights, const float *residual, float *output,
                                   float *partials, int64_t task_begin, int64_t task_end) {
#if defined(__x86_64__)
    if (gs_has_avx512_bf16()) {
        inverted_residual_bf16_avx512bf16(p, input, expand_weights, depthwise_weights, project_weights, residual, output,
                                          partials, task_begin, task_end);
        return;
    }
    if (gs_has_avx512()) {
        inverted_residual_bf16_avx512(p, input, expand_weights, depthwise_weights, project_weights, residual, output,
                                      partials, task_begin, task_end);
        return;
    }
    if (gs_has_avx2_fma()) {
        inverted_residual_bf16_avx2(p, input, expand_weights, depthwise_weights, project_weights, residual, output,
                                    partials, task_begin, task_end);
        return;
    }
#endif
    inverted_residual_bf16_portable(p, input, expand_weights, depthwise_weights, project_weights, residual, output,
                                    partials, task_begin, task_end);
}
