// Graph convolutions in bf16: kinds 2 (GEMV) and 3 (small maps) and the inverted residual block's
// channel-blocked passes (gs_conv2d_run_bf16, gs_inverted_residual_run_bf16).
// conv2d_blocked_body.inc and inverted_residual_blocked_body.inc compiled with BK_BF16, as four
// twins: VDPBF16PS (AVX512_BF16) and its emulation in the avx512, avx2 and portable twins (tests:
// the library runs bf16 only where the CPU has the instruction).
#include "conv2d_graph.h"
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

int gs_conv2d_bf16_kind(const gs_conv2d_params *p, int kind) {
    return (kind == 2 || kind == 3) && p->groups == 1 && p->quant_scale <= 0;
}

/// Kind 2's terms: the flattened input.
static int64_t gemv_terms(const gs_conv2d_params *p) { return (int64_t)p->in_channels * p->in_height * p->in_width; }

int64_t gs_conv2d_bf16_packed_count(const gs_conv2d_params *p, int kind) {
    if (kind == 2) return (int64_t)p->out_channels * ((gemv_terms(p) + 1) / 2);
    return (int64_t)(p->out_channels + GS_CO_BLOCK - 1) / GS_CO_BLOCK * ((p->in_channels + 1) / 2) * GS_CO_BLOCK;
}

void gs_conv2d_bf16_pack(const gs_conv2d_params *p, int kind, const float *prepared, uint32_t *packed) {
    if (kind == 2) {
        // [out][n] -> [out][n / 2] pairs of consecutive terms.
        const int64_t n = gemv_terms(p), pairs = (n + 1) / 2;
        for (int co = 0; co < p->out_channels; co++)
            for (int64_t k = 0; k < pairs; k++) {
                const float *w = prepared + co * n + 2 * k;
                *packed++ = gs_bf16_pair(w[0], 2 * k + 1 < n ? w[1] : 0.0f);
            }
        return;
    }
    // Kind 3: [block of 32 outputs][in][32] -> [block][in / 2][32] pairs of input channels.
    const int in = p->in_channels, blocks = (p->out_channels + GS_CO_BLOCK - 1) / GS_CO_BLOCK, pairs = (in + 1) / 2;
    for (int b = 0; b < blocks; b++) {
        const float *block = prepared + (int64_t)b * in * GS_CO_BLOCK;
        for (int k = 0; k < pairs; k++)
            for (int c = 0; c < GS_CO_BLOCK; c++) {
                const float hi = 2 * k + 1 < in ? block[(2 * k + 1) * GS_CO_BLOCK + c] : 0.0f;
                *packed++ = gs_bf16_pair(block[2 * k * GS_CO_BLOCK + c], hi);
            }
    }
}

int64_t gs_conv2d_bf16_input_count(const gs_conv2d_params *p, int kind) {
    if (kind == 2) return (gemv_terms(p) + 1) / 2;
    return (int64_t)(p->in_channels + 1) / 2 * p->in_height * p->in_width;
}

void gs_conv2d_bf16_input(const gs_conv2d_params *p, int kind, const float *input, uint32_t *pairs) {
    if (kind == 2) {
        const int64_t n = gemv_terms(p);
        for (int64_t k = 0; 2 * k < n; k++) pairs[k] = gs_bf16_pair(input[2 * k], 2 * k + 1 < n ? input[2 * k + 1] : 0.0f);
        return;
    }
    const int64_t plane = (int64_t)p->in_height * p->in_width;
    for (int k = 0; 2 * k < p->in_channels; k++) {
        const float *lo = input + 2 * k * plane;
        if (2 * k + 1 < p->in_channels) gs_bf16_pack_pairs(lo, lo + plane, (int)plane, pairs + k * plane);
        else
            for (int64_t i = 0; i < plane; i++) pairs[k * plane + i] = gs_bf16_pair(lo[i], 0.0f);
    }
}

#define BK_BF16
#define ISA_TWINS_BODY "conv2d_graph_bf16_body.inc"
#define ISA_TWINS_AVX512
#define ISA_TWINS_AVX512BF16
#include "isa_twins.h"
#undef BK_BF16

/// The twin for the level in use: VDPBF16PS where gs_has_avx512_bf16, else the emulation.
#if defined(__x86_64__)
#define GS_BF16_DISPATCH(name, ...)                                                                      \
    do {                                                                                                  \
        if (gs_has_avx512_bf16()) name##avx512bf16(__VA_ARGS__);                                          \
        else if (gs_has_avx512()) name##avx512(__VA_ARGS__);                                              \
        else if (gs_has_avx2_fma()) name##avx2(__VA_ARGS__);                                              \
        else name##portable(__VA_ARGS__);                                                                 \
    } while (0)
#else
#define GS_BF16_DISPATCH(name, ...) name##portable(__VA_ARGS__)
#endif

void gs_conv2d_run_bf16(const gs_conv2d_params *p, int kind, const uint32_t *pairs, const uint32_t *packed, float *output,
                        int64_t task_begin, int64_t task_end) {
    if (kind == 2) GS_BF16_DISPATCH(gemv_bf16_tasks_, p, pairs, packed, output, task_begin, task_end);
    else GS_BF16_DISPATCH(small_plane_bf16_tasks_, p, pairs, packed, output, task_begin, task_end);
}

void gs_inverted_residual_run_bf16(const gs_inverted_residual_params *p, const float *input,
                                   const uint32_t *expand_weights, const float *depthwise_weights,
                                   const uint32_t *project_weights, const float *residual, float *output,
                                   float *partials, int64_t task_begin, int64_t task_end) {
    GS_BF16_DISPATCH(inverted_residual_bf16_, p, input, expand_weights, depthwise_weights, project_weights, residual,
                     output, partials, task_begin, task_end);
}
