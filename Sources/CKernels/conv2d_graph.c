// Graph convolutions (ExecutionPlan.Conv2D) on dense NCHW tensors, three algorithms:
// - GEMM: out[co][p] = sum_k A[co][k] B[k][p] with A the weights packed once into blocks of
//   GS_MR output channels ([group][block][k][GS_MR]) and B panels of NR pixels packed per task
//   (a 1x1 convolution copies rows; any other convolution gathers its im2col rows, zeros for
//   padding). An 8 x NR register-blocked micro-kernel with bias + activation on the way out.
// - depthwise: one plane at a time, padding checked only at the borders.
// - GEMV: a kernel covering its whole input (a fully connected layer).
// and the kernel-2 stride-2 transposed convolution (transposed_conv2d_body.inc).
// The body is compiled for AVX-512, AVX2+FMA and the baseline instruction set (isa_twins.h).
#include "conv2d_graph.h"
#include "inverted_residual.h"
#include "activation.h"
#include "fake_quant.h"
#include "gs_memory.h"
#include "gs_winograd.h"
#include "simd.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/// Output channels per packed weight block (rows of the micro-kernel).
#define GS_MR 8
/// Pixels per GEMM task on large planes.
#define GS_PIXEL_TILE 64
/// Pixels per GEMM task on planes of 2048+ pixels (gemm_pixel_tile).
#define GS_LARGE_PIXEL_TILE 128
/// 1x1 convolutions of fewer output pixels than this vectorise over output channels (kind 3):
/// a 7x7 plane is 49 pixels, which 16-pixel vectors cover at 77 % (320->1280 at 7x7 ran at
/// 74 GFLOP/s on one core, 960->160 at 69, as a GEMM).
#define GS_SMALL_PLANE 256
/// Kind 3 only for long sums: its epilogue moves each channel's pixels out of the accumulators'
/// lanes (the bound was set when it stored them lane by lane, and not measured again since).
#define GS_SMALL_PLANE_MIN_K 256

static inline int cdiv(int a, int b) { return (a + b - 1) / b; }

/// Kind 5 (the direct 3x3 kernel, conv2d_graph_direct_body.inc): the widest pixel block of any
/// instruction set's micro-kernel (AVX-512: 2 x 16) and the largest per-thread copy of a task's
/// input rows it takes: 4 MB (64 channels of a 4096-pixel-wide map need 3.1 MB); wider maps run
/// as GEMMs.
#define GS_DIRECT_MAX_NR 32
#define GS_DIRECT_MAX_SCRATCH_BYTES ((int64_t)4 << 20)

/// Floats of one phase of a copied input row: the pixel blocks' last lane at the last tap.
static int gs_direct_row_length(const gs_conv2d_params *p) {
    return cdiv(p->out_width, GS_DIRECT_MAX_NR) * GS_DIRECT_MAX_NR + (p->kernel_width - 1) / p->stride_x;
}

/// Floats of a direct task's copied rows: kernel_height rows of stride_x phases per input channel.
static int64_t gs_direct_scratch_floats(const gs_conv2d_params *p) {
    return (int64_t)p->in_channels * p->kernel_height * p->stride_x * gs_direct_row_length(p);
}

/// Kind 6 (Winograd's F(4x4, 3x3) through gs_winograd_run): 3x3, stride 1, padded by 1 on every
/// side, at least this many input and output channels and output columns. One core, warm, thread
/// CPU time (AMD EPYC Zen 4), direct kernel -> Winograd on RetinaFace's 136x240 maps: 64->64
/// 24.7 -> 10.5 ms, 64->32 13.3 -> 6.7, 16->16 1.68 -> 1.02. Below 64 columns a tile row is fewer
/// than 16 tiles and its 32-tile multiply steps are more than half empty.
#define GS_WINOGRAD_GRAPH_MIN_CHANNELS 16
#define GS_WINOGRAD_GRAPH_MIN_WIDTH 64

/// Floats of a Winograd task's scratch: its six padded input rows per input channel, then
/// gs_winograd_run's own.
static int64_t gs_winograd_graph_scratch_floats(const gs_conv2d_params *p) {
    return (int64_t)p->in_channels * 6 * (p->in_width + 2) + gs_winograd_scratch(p->in_channels);
}

static int gs_conv2d_winograd(const gs_conv2d_params *p) {
    return p->groups == 1 && p->kernel_height == 3 && p->kernel_width == 3 && p->stride_y == 1 && p->stride_x == 1
           && p->pad_top == 1 && p->pad_left == 1 && p->out_height == p->in_height && p->out_width == p->in_width
           && p->in_channels >= GS_WINOGRAD_GRAPH_MIN_CHANNELS && p->out_channels >= GS_WINOGRAD_GRAPH_MIN_CHANNELS
           && p->out_width >= GS_WINOGRAD_GRAPH_MIN_WIDTH
           && 4 * gs_winograd_graph_scratch_floats(p) <= GS_DIRECT_MAX_SCRATCH_BYTES;
}

static int gs_conv2d_direct(const gs_conv2d_params *p) {
    return p->groups == 1 && p->kernel_height == 3 && p->kernel_width == 3 && p->stride_y == p->stride_x
           && (p->stride_x == 1 || p->stride_x == 2)
           && 4 * gs_direct_scratch_floats(p) <= GS_DIRECT_MAX_SCRATCH_BYTES;
}

int gs_conv2d_kind(const gs_conv2d_params *p) {
    if (p->groups > 1 && p->groups == p->in_channels && p->groups == p->out_channels) return 1;
    if (p->groups == 1 && p->out_height == 1 && p->out_width == 1 && p->kernel_height == p->in_height
        && p->kernel_width == p->in_width && p->pad_top == 0 && p->pad_left == 0) return 2;
    if (p->groups == 1 && p->kernel_height == 1 && p->kernel_width == 1 && p->stride_y == 1 && p->stride_x == 1
        && p->pad_top == 0 && p->pad_left == 0 && p->out_height * p->out_width < GS_SMALL_PLANE
        && p->in_channels >= GS_SMALL_PLANE_MIN_K) return 3;
    if (gs_conv2d_winograd(p)) return 6;
    if (gs_conv2d_direct(p)) return 5;
    return 0;
}

int gs_conv2d_takes_residual(const gs_conv2d_params *p) {
    const int kind = gs_conv2d_kind(p);
    return kind == 0 || kind == 3;
}

static int gemm_k(const gs_conv2d_params *p) {
    return p->in_channels / p->groups * p->kernel_height * p->kernel_width;
}

int64_t gs_conv2d_prepared_count(const gs_conv2d_params *p) { return gs_conv2d_prepared_count_kind(p, gs_conv2d_kind(p)); }

void gs_conv2d_prepare(const gs_conv2d_params *p, const float *weights, float *prepared) {
    gs_conv2d_prepare_kind(p, gs_conv2d_kind(p), weights, prepared);
}

int64_t gs_conv2d_prepared_count_kind(const gs_conv2d_params *p, int kind) {
    if (kind == 3) return (int64_t)cdiv(p->out_channels, GS_CO_BLOCK) * GS_CO_BLOCK * gemm_k(p);
    if (kind == 4) return (int64_t)cdiv(p->out_channels, 16) * 16 * gemm_k(p);
    if (kind == 6) return gs_winograd_packed_count(p->out_channels, p->in_channels);
    if (kind != 0 && kind != 5) return (int64_t)p->out_channels * gemm_k(p);
    // Kind 5 (groups 1) packs as the GEMM.
    int coutg = p->out_channels / p->groups;
    return (int64_t)p->groups * cdiv(coutg, GS_MR) * GS_MR * gemm_k(p);
}

void gs_conv2d_prepare_kind(const gs_conv2d_params *p, int kind, const float *weights, float *prepared) {
    const int64_t k_count = gemm_k(p);
    if (kind == 3) {
        // [block of 32 outputs][in][32], zeros past the last output.
        for (int b = 0; b < cdiv(p->out_channels, GS_CO_BLOCK); b++)
            for (int64_t k = 0; k < k_count; k++)
                for (int c = 0; c < GS_CO_BLOCK; c++) {
                    int co = b * GS_CO_BLOCK + c;
                    *prepared++ = co < p->out_channels ? weights[co * k_count + k] : 0.0f;
                }
        return;
    }
    if (kind == 4) {
        // [block of 16 channels][tap][16], zeros past the last channel.
        for (int b = 0; b < cdiv(p->out_channels, 16); b++)
            for (int64_t t = 0; t < k_count; t++)
                for (int c = 0; c < 16; c++) {
                    int ch = b * 16 + c;
                    *prepared++ = ch < p->out_channels ? weights[ch * k_count + t] : 0.0f;
                }
        return;
    }
    if (kind == 6) {
        gs_winograd_pack(weights, p->out_channels, p->in_channels, prepared);
        return;
    }
    if (kind != 0 && kind != 5) {
        memcpy(prepared, weights, sizeof(float) * (size_t)(p->out_channels * k_count));
        return;
    }
    const int coutg = p->out_channels / p->groups, blocks = cdiv(coutg, GS_MR);
    for (int g = 0; g < p->groups; g++)
        for (int b = 0; b < blocks; b++)
            for (int64_t k = 0; k < k_count; k++)
                for (int m = 0; m < GS_MR; m++) {
                    int co = b * GS_MR + m;
                    *prepared++ = co < coutg ? weights[((int64_t)g * coutg + co) * k_count + k] : 0.0f;
                }
}

/// Pixels per GEMM task: 64, or 32 on small planes (7x7, 14x14) so that their tasks split
/// by pixels before they split by channels (every channel tile repacks the partial block),
/// 128 on large planes (56x56, 112x112): longer runs along each input and output plane for the
/// prefetchers. MobileNetV2's 1x1 layers there, one core, caches flushed between runs, medians
/// of 6 alternating rounds (64 -> 128): 32->16 at 112x112 286 -> 234 us, 16->96 1033 -> 849,
/// 96->24 at 56x56 252 -> 170, 24->144 379 -> 308, 144->24 362 -> 330 (28x28 planes: no
/// clear change, and 7 tasks instead of 13 balance worse over two threads).
static int gemm_pixel_tile(const gs_conv2d_params *p) {
    const int pixels = p->out_height * p->out_width;
    return pixels < 256 ? 32 : pixels >= 2048 ? GS_LARGE_PIXEL_TILE : GS_PIXEL_TILE;
}

/// Output channels per GEMM task: 64, or 32 when that makes fewer than 8 tasks. MobileNetV2's
/// 7x7 layers made 3 tasks (960->160) for 2 threads; 16 cost more in repacking than it saved.
static int gemm_channel_tile(const gs_conv2d_params *p) {
    const int64_t pixel_tiles = (int64_t)p->groups * cdiv(p->out_height * p->out_width, gemm_pixel_tile(p));
    const int coutg = p->out_channels / p->groups;
    return pixel_tiles * cdiv(coutg, 64) < 8 ? 32 : 64;
}

/// Tasks of the small-map kernel (kind 3): its 32-channel blocks, each over the whole map.
static int64_t small_plane_tasks(const gs_conv2d_params *p) { return cdiv(p->out_channels, GS_CO_BLOCK); }

int64_t gs_conv2d_tasks(const gs_conv2d_params *p) {
    switch (gs_conv2d_kind(p)) {
    case 1: return p->out_channels;
    case 2: return cdiv(p->out_channels, GS_GEMV_TILE);
    case 3: return small_plane_tasks(p);
    case 5: return p->out_height;
    case 6: return cdiv(p->out_height, 4);
    default:
        return (int64_t)p->groups * cdiv(p->out_height * p->out_width, gemm_pixel_tile(p))
               * cdiv(p->out_channels / p->groups, gemm_channel_tile(p));
    }
}

/// Floats of one phase of a padded depthwise row: 8-float loads for outputs up to
/// roundup(out_width, 8) - 1 at tap kx read up to element that + 7 + (kw - 1) / stride_x.
static int gs_depthwise_phase_length(const gs_conv2d_params *p) {
    return cdiv(p->out_width, 8) * 8 + (p->kernel_width - 1) / p->stride_x + 1;
}

/// Floats of a depthwise task's padded plane, plus 8 of slack: a row's masked last vector may
/// store up to 7 zeros past it.
static int64_t gs_depthwise_scratch(const gs_conv2d_params *p) {
    return (int64_t)((p->out_height - 1) * p->stride_y + p->kernel_height) * p->stride_x
           * gs_depthwise_phase_length(p) + 8;
}

#define ISA_TWINS_BODY "conv2d_graph_body.inc"
#define ISA_TWINS_AVX512
#include "isa_twins.h"

const char *gs_conv2d_isa(void) { return gs_isa_name(gs_isa_level()); }

void gs_conv2d_run(const gs_conv2d_params *p, const float *input, const float *prepared, float *output,
                   int64_t task_begin, int64_t task_end) {
    switch (gs_isa_level()) {
#if defined(__x86_64__)
    case 2: conv2d_graph_avx512(p, input, prepared, output, task_begin, task_end); return;
    case 1: conv2d_graph_avx2(p, input, prepared, output, task_begin, task_end); return;
#endif
    default: conv2d_graph_portable(p, input, prepared, output, task_begin, task_end);
    }
}

int gs_inverted_residual_strip_rows(const gs_inverted_residual_params *p, int64_t cache_bytes, int max_rows) {
    const gs_conv2d_params *dw = &p->depthwise;
    // The blocked layout rounds the channels up to 16 and borders the expanded rows.
    const int64_t channels = p->blocked ? (dw->in_channels + 15) / 16 * 16 : dw->in_channels;
    const int64_t width = p->blocked ? (int64_t)(dw->out_width - 1) * dw->stride_x + dw->kernel_width : dw->in_width;
    // Per output row: the input rows it adds (stride rows: expanded, or without an expansion
    // the block's own input rows, which the depthwise taps read through L2 as well) and its
    // filtered row. Counting the input rows without an expansion (classify's 32->32->16 at
    // 112x112 with half of Zen 4's 1 MiB L2: 17 rows per strip instead of a whole 56-row band)
    // took that step 0.84 of its time on one core and 0.90 on two (6 and 8 alternating profiles,
    // AMD EPYC Zen 4, 2026-11-30), RetinaFace's 8->8->16 at 256x256 0.93; the other steps 0.98-1.01.
    const int64_t per_row = 4 * channels * ((int64_t)dw->stride_y * width + dw->out_width);
    const int64_t fixed = 4 * channels * width * (dw->kernel_height - dw->stride_y);
    int64_t rows = (cache_bytes - fixed) / per_row;
    if (rows > max_rows) rows = max_rows;
    return rows < 1 ? 1 : (int)rows;
}

void gs_inverted_residual_run(const gs_inverted_residual_params *p, const float *input, const float *expand_weights,
                              const float *depthwise_weights, const float *project_weights, const float *residual,
                              float *output, float *partials, int64_t task_begin, int64_t task_end) {
    switch (gs_isa_level()) {
#if defined(__x86_64__)
    case 2: inverted_residual_avx512(p, input, expand_weights, depthwise_weights, project_weights, residual, output, partials, task_begin, task_end); return;
    case 1: inverted_residual_avx2(p, input, expand_weights, depthwise_weights, project_weights, residual, output, partials, task_begin, task_end); return;
#endif
    default: inverted_residual_portable(p, input, expand_weights, depthwise_weights, project_weights, residual, output, partials, task_begin, task_end);
    }
}

int64_t gs_inverted_residual_partials(const gs_inverted_residual_params *p) {
    if (p->channel_parts < 2) return 0;  // rows, or one part
    return (int64_t)(p->channel_parts - 1) * p->project.out_channels * p->project.out_height * p->project.out_width;
}

void gs_inverted_residual_reduce(const gs_inverted_residual_params *p, float *output, const float *partials,
                                 const float *residual, int64_t begin, int64_t end) {
    const int64_t size = (int64_t)p->project.out_channels * p->project.out_height * p->project.out_width;
    for (int part = 1; part < p->channel_parts; part++) {
        const float *src = partials + (part - 1) * size;
        for (int64_t i = begin; i < end; i++) output[i] += src[i];
    }
    if (residual)
        for (int64_t i = begin; i < end; i++) output[i] += residual[i];
}

void gs_transposed_conv2d(const float *input, int in_channels, int height, int width, const float *weights,
                          const float *bias, int out_channels, int activation, float alpha, float beta,
                          const float *slopes, float *output, int64_t item_begin, int64_t item_end) {
    switch (gs_isa_level()) {
#if defined(__x86_64__)
    case 2: transposed_conv2d_avx512(input, in_channels, height, width, weights, bias, out_channels, activation, alpha, beta, slopes, output, item_begin, item_end); return;
    case 1: transposed_conv2d_avx2(input, in_channels, height, width, weights, bias, out_channels, activation, alpha, beta, slopes, output, item_begin, item_end); return;
#endif
    default: transposed_conv2d_portable(input, in_channels, height, width, weights, bias, out_channels, activation, alpha, beta, slopes, output, item_begin, item_end);
    }
}

int64_t gs_transposed_conv2d_items(int out_channels, int height) {
    return (int64_t)cdiv(out_channels, GS_TRANSPOSED_BLOCK) * height;
}
