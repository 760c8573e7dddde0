#ifndef GPUSTYLE_INVERTED_RESIDUAL_H
#define GPUSTYLE_INVERTED_RESIDUAL_H
#include "conv2d_graph.h"

/// MobileNetV2's inverted residual block (ExecutionPlan.InvertedResidual) in one pass:
/// [1x1 expand] -> depthwise -> 1x1 project [+ residual], each convolution with its bias and
/// activation as in gs_conv2d_params. The 1x1 weights are packed as GEMM convolutions
/// (gs_conv2d_prepare_kind 0), the depthwise weights as given ([channels][kh][kw]).
///
/// Three ways to run it:
/// - rows (channel_parts 0): tasks are output rows; a thread walks its rows in strips of
///   strip_rows, each expanded, filtered and projected while it is in cache.
/// - channels (channel_parts >= 2, for small maps): task t expands and filters its own range of
///   the expanded channels over the whole map (ranges of whole 8-channel weight blocks) and
///   projects them: part 0 into the output with the bias, part t > 0 its partial
///   sums into `partials` (gs_inverted_residual_partials floats); gs_inverted_residual_reduce
///   then adds them and the residual. The projection must have no activation.
/// - blocked (small maps): channel parts as above, but the expanded and filtered channels are
///   held 16 side by side (inverted_residual_blocked_body.inc). The 1x1 weights are packed
///   with gs_conv2d_prepare_kind 3, the depthwise weights with kind 4; the depthwise kernel has
///   at most GS_BLOCKED_MAX_TAPS taps. One part (channel_parts 1) writes the finished output,
///   with the projection's activation and the residual.
/// - blocked rows (blocked, channel_parts 0, with an expansion): split by rows as above, each
///   strip's expanded and filtered rows held 16 channels side by side; packed as blocked.
/// Fused fake quantisations (gs_conv2d_params' quant_scale of each part, and the projection's
/// residual_scale after the residual add) apply in the rows and the blocked passes; channel parts
/// of two or more leave the projection's sums unfinished, so its quantisations must be off there.
typedef struct {
    gs_conv2d_params expand;     // used when has_expand (else the depthwise reads the input)
    gs_conv2d_params depthwise;  // zero padding, any stride
    gs_conv2d_params project;
    int has_expand;
    int strip_rows;              // output rows per strip (gs_inverted_residual_strip_rows)
    int channel_parts;           // 0: split by rows; else this many channel ranges
    int blocked;                 // the channel-blocked layout (rows or channel parts)
} gs_inverted_residual_params;

/// Depthwise taps the blocked pass holds in registers.
#define GS_BLOCKED_MAX_TAPS 25

/// Output rows per strip: the most whose expanded and filtered rows fit `cache_bytes`, at most
/// `max_rows` (the rows one thread gets).
int gs_inverted_residual_strip_rows(const gs_inverted_residual_params *p, int64_t cache_bytes, int max_rows);

/// Tasks are output rows (or channel parts); `residual` (dense like the output, or NULL) is
/// added after the projection; `partials` is used by channel parts only (else NULL).
void gs_inverted_residual_run(const gs_inverted_residual_params *p, const float *input, const float *expand_weights,
                              const float *depthwise_weights, const float *project_weights, const float *residual,
                              float *output, float *partials, int64_t task_begin, int64_t task_end);

/// Floats of the partial sums channel parts 1... write (0 when split by rows or one part).
int64_t gs_inverted_residual_partials(const gs_inverted_residual_params *p);

/// output[i] += the parts' partial sums [+ residual[i]], for output floats [begin, end).
void gs_inverted_residual_reduce(const gs_inverted_residual_params *p, float *output, const float *partials,
                                 const float *residual, int64_t begin, int64_t end);
/// The channel-blocked passes (p->blocked, with an expansion) with bf16 1x1 convolutions
/// (conv2d_graph_bf16.c): their inputs (the block's input, the depthwise output) and weights
/// rounded to bf16, the products summed in fp32 by VDPBF16PS where gs_has_avx512_bf16 (else
/// emulated: tests); the depthwise convolution and every sum stay fp32. The 1x1 weights are
/// packed by gs_conv2d_bf16_pack (kind 3); tasks, `partials` and the reduction as
/// gs_inverted_residual_run.
void gs_inverted_residual_run_bf16(const gs_inverted_residual_params *p, const float *input,
                                   const uint32_t *expand_weights, const float *depthwise_weights,
                                   const uint32_t *project_weights, const float *residual, float *output,
                                   float *partials, int64_t task_begin, int64_t task_end);
#endif
