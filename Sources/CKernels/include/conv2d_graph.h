#ifndef GPUSTYLE_CONV2D_GRAPH_H
#define GPUSTYLE_CONV2D_GRAPH_H
#include <stdint.h>

/// One graph convolution (ExecutionPlan.Conv2D) over dense [C][H][W] tensors: zero padding,
/// groups, bias and a fused activation (numbered like Swift's `Activation`).
typedef struct {
    int in_channels, in_height, in_width;
    int out_channels, out_height, out_width;
    int kernel_height, kernel_width, stride_y, stride_x;
    int pad_top, pad_left;  // bottom/right padding follow from the output size
    int groups;
    int activation;
    float alpha, beta;
    const float *bias;    // [out_channels] or NULL
    const float *slopes;  // PReLU's [out_channels] (activation 7)
    // Fake quantisation after the activation, before the store, when quant_scale > 0: fake_quant.c's
    // y = round_half_even(clamp(x / scale, low, high)) * scale with low and high the integer range
    // minus the zero point (GS_FAKE_QUANT). residual_scale > 0: the same, with its own quantiser,
    // after a fused block's residual add (gs_inverted_residual_run).
    float quant_scale, quant_low, quant_high;
    float residual_scale, residual_low, residual_high;
    // A residual added after the activation and fake quantisation, laid out as the output
    // ([out_channels][out_height][out_width]), then residual_scale's fake quantisation, or NULL:
    // a graph's add step fused into the convolution before it (ExecutionPlan.fusableResidualAdd).
    // Kinds 0 and 3 only (gs_conv2d_takes_residual); it may be the output itself (each value is
    // read before it is written), never the input.
    const float *residual;
} gs_conv2d_params;

/// The algorithm a convolution runs: 0 GEMM (1x1 pointwise, or im2col panels for the rest),
/// 1 depthwise (groups == in == out), 2 GEMV (a kernel covering the whole input: output 1x1),
/// 3 the small-map 1x1 kernel, 5 direct 3x3 at stride 1 or 2 (groups 1; packed as the GEMM's),
/// 6 3x3 stride 1 padded by 1 by Winograd's F(4x4, 3x3) (gs_winograd.h's packing).
int gs_conv2d_kind(const gs_conv2d_params *p);

/// Whether gs_conv2d_run adds p->residual for this convolution's kind (0 and 3).
int gs_conv2d_takes_residual(const gs_conv2d_params *p);

/// Floats of the prepared (packed) weights and the packing of ONNX weights [out][in/groups][kh][kw].
/// The layout does not depend on the instruction set.
int64_t gs_conv2d_prepared_count(const gs_conv2d_params *p);
void gs_conv2d_prepare(const gs_conv2d_params *p, const float *weights, float *prepared);

/// The same for an explicit algorithm (a fused kernel may run a convolution as another kind).
/// Kind 3 packs [out / 32][in][32] (the small-map kernel's blocks of output channels); kind 4
/// packs a depthwise convolution's taps 16 channels side by side, [channels / 16][kh * kw][16]
/// (the channel-blocked inverted residual pass); both are zero past the last channel.
/// Kind 3: output channels per packed weight block and per task.
#define GS_CO_BLOCK 32
/// Kind 2 (GEMV): output channels per task.
#define GS_GEMV_TILE 16
int64_t gs_conv2d_prepared_count_kind(const gs_conv2d_params *p, int kind);
void gs_conv2d_prepare_kind(const gs_conv2d_params *p, int kind, const float *weights, float *prepared);

/// Independent pieces of work of a convolution; threads run disjoint task ranges.
int64_t gs_conv2d_tasks(const gs_conv2d_params *p);
void gs_conv2d_run(const gs_conv2d_params *p, const float *input, const float *prepared, float *output,
                   int64_t task_begin, int64_t task_end);

/// Transposed convolution, kernel 2, stride 2 (ExecutionPlan.TransposedConv2D), weights
/// [in][out][2][2] as given, then bias and a fused activation (numbered like Swift's
/// `Activation`; PReLU's `slopes` one per output channel, else NULL), for items [item_begin,
/// item_end): item b * height + y makes the rows 2y and 2y + 1 of output channels
/// [b * GS_TRANSPOSED_BLOCK, (b + 1) * GS_TRANSPOSED_BLOCK); gs_transposed_conv2d_items of them.
/// 4 channels: the AVX-512 kernel's 16 accumulators (4 channels x 4 taps) share each input load.
#define GS_TRANSPOSED_BLOCK 4
void gs_transposed_conv2d(const float *input, int in_channels, int height, int width, const float *weights,
                          const float *bias, int out_channels, int activation, float alpha, float beta,
                          const float *slopes, float *output, int64_t item_begin, int64_t item_end);
int64_t gs_transposed_conv2d_items(int out_channels, int height);

/// Name of the instruction set the graph convolutions use ("avx512", "avx2+fma", "portable").
const char *gs_conv2d_isa(void);
/// Kinds 2 (GEMV) and 3 (small maps) in bf16 (conv2d_graph_bf16.c): the input and the weights
/// rounded to bf16, two input terms to a 32-bit word (kind 3: input channels 2k and 2k + 1 of a
/// pixel; kind 2: flattened input elements 2k and 2k + 1), the products summed in fp32 by
/// VDPBF16PS where gs_has_avx512_bf16 (else emulated: tests). The same tasks as gs_conv2d_run.
/// The weights are packed once from the kind's fp32 packing (gs_conv2d_prepare_kind), the input
/// rounded once per run by gs_conv2d_bf16_input.
int gs_conv2d_bf16_kind(const gs_conv2d_params *p, int kind);
int64_t gs_conv2d_bf16_packed_count(const gs_conv2d_params *p, int kind);
void gs_conv2d_bf16_pack(const gs_conv2d_params *p, int kind, const float *prepared, uint32_t *packed);
int64_t gs_conv2d_bf16_input_count(const gs_conv2d_params *p, int kind);
void gs_conv2d_bf16_input(const gs_conv2d_params *p, int kind, const float *input, uint32_t *pairs);
void gs_conv2d_run_bf16(const gs_conv2d_params *p, int kind, const uint32_t *pairs, const uint32_t *packed, float *output,
                        int64_t task_begin, int64_t task_end);
#endif
