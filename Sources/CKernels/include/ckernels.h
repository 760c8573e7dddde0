#ifndef GPUSTYLE_CKERNELS_H
#define GPUSTYLE_CKERNELS_H
#include <stdint.h>

/// Output channels computed together by the convolution micro-kernel; packed weights are
/// grouped in blocks of this many channels.
#define GS_CONV_CHANNEL_BLOCK 3

/// Floats needed by gs_conv_pack_weights' output.
int64_t gs_conv_packed_weight_count(int cout, int cin, int kernel);

/// Repacks ONNX weights [cout][cin][k][k] into [ceil(cout/3) blocks][cin][k][k][3], zero-filling
/// the channels of a partial last block.
void gs_conv_pack_weights(const float *weights, int cout, int cin, int kernel, float *packed);

/// Convolution of a padded input (see ExecutionPlan.Pad) for output rows [row_begin, row_end):
/// out[co][y][x] = sum_{ci,ky,kx} w[co][ci][ky][kx] * in[ci][y*stride+ky][x+col_offset[kx]].
/// Rows of the input must have at least 32 readable floats past the last used column.
void gs_conv2d_rows(const float *input, int64_t in_plane_stride, int64_t in_row_stride,
                    const int32_t *col_offset, int cin, int kernel, int stride,
                    const float *packed_weights, int cout,
                    float *output, int64_t out_plane_stride, int out_width,
                    int row_begin, int row_end);

/// A stretch of a padded row's column table (dst[dst + t] = src[src + f(t)] for t < count):
/// mode 1 copies (f(t) = t), mode 2 takes every other column (f(t) = 2 t: the split layout of
/// stride-2 layers), mode 3 repeats each column twice (f(t) = t / 2: the nearest 2x upsample).
typedef struct {
    int32_t dst, src, count, mode;
} gs_pad_run;

/// The table `columns` (count entries) as runs, longest first at each position; returns how many
/// (at most count).
int gs_pad_runs(const int32_t *columns, int count, gs_pad_run *runs);

/// One padded row from its source row: dst[i] = src[columns[i]] for the table gs_pad_runs made
/// `runs` of, with whole vectors.
void gs_pad_row(const float *src, const gs_pad_run *runs, int run_count, float *dst);

/// gs_pad_row of y = x * scale + shift, then max(y, 0) when relu is set: gs_instance_norm_apply's
/// identity and relu, bit for bit, in the same pass.
void gs_pad_row_normalized(const float *src, const gs_pad_run *runs, int run_count, float scale, float shift, int relu,
                           float *dst);

/// The input of gs_conv2d_banded: a dense map (channel planes `plane` floats apart, rows `width`
/// floats long) that a padded copy is made of row by row, as ExecutionPlan.Pad makes it whole:
/// padded row r copies source row rows[r] through the column runs (gs_pad_runs) of
/// `padded_width` columns, after y = act(x * scale[c] + shift[c]) when scale is not NULL
/// (gs_instance_norm_apply's arithmetic, so the result is the unfused steps' bit for bit).
typedef struct {
    const float *source;
    int64_t plane;
    int width;
    const int32_t *rows;
    const gs_pad_run *runs;
    int run_count;
    int padded_width;
    const float *scale, *shift;
    int activation;
} gs_conv_band_input;

/// gs_conv2d_rows for output rows [row_begin, row_end) of a padded input it makes itself, a band
/// of band_rows output rows at a time, into a private buffer of (band_rows - 1) * stride + kernel
/// padded rows per channel, `row_stride` floats apart (padded_width plus the kernel's slack):
/// the padded copy of the whole map never exists and every input row is read from the map once
/// (the rows two bands share move to the front). With `moments` (NULL, or cout x [count, shift,
/// sum, sum of squares] in double, zeroed by the caller; the sums are of value - shift, the shift
/// the channel's first output), each output channel's moments over these rows are taken as its
/// outputs are stored. Returns 0, or -1 when that buffer cannot be allocated.
int gs_conv2d_banded(const gs_conv_band_input *input, int64_t row_stride, const int32_t *col_offset, int cin,
                     int kernel, int stride, const float *packed_weights, int cout, float *output,
                     int64_t out_plane_stride, int out_width, int row_begin, int row_end, int band_rows,
                     double *moments);

/// bf16 convolutions (conv2d_bf16.c): inputs and weights rounded to bf16 (to nearest even), the
/// products summed in fp32 (VDPBF16PS where the CPU has AVX512_BF16, gs_has_avx512_bf16, else the
/// same arithmetic emulated). Weights are packed once, in pairs of input channels: 32-bit words of
/// gs_conv_bf16_packed_count, [ceil(cout/3) blocks][ceil(cin/2) pairs][k][k][3], each word the bf16
/// weights of input channels 2p (low half) and 2p + 1 (high half; zero past cin).
int64_t gs_conv_bf16_packed_count(int cout, int cin, int kernel);
void gs_conv_bf16_pack_weights(const float *weights, int cout, int cin, int kernel, uint32_t *packed);

/// gs_conv2d_banded in bf16: the band's padded rows are made in fp32 as there, then rounded and
/// packed in channel pairs (half the bytes in the band buffer). `cin` counts channels.
int gs_conv2d_banded_bf16(const gs_conv_band_input *input, int64_t row_stride, const int32_t *col_offset, int cin,
                          int kernel, int stride, const uint32_t *packed_weights, int cout, float *output,
                          int64_t out_plane_stride, int out_width, int row_begin, int row_end, int band_rows,
                          double *moments);

/// x rounded to the nearest bf16 (ties to even), as a float (tests' references).
float gs_bf16_round(float x);

/// Sum and sum of squares of (x - shift) over n floats, accumulated in float vectors over
/// short runs and combined in double.
void gs_instance_norm_moments(const float *x, int64_t n, float shift, double *sum, double *squares);

/// y = act(x * scale + shift) (+ residual[i] when residual is not NULL), act 0 = identity,
/// 1 = relu, 2 = sigmoid. In place (y == x) is allowed.
void gs_instance_norm_apply(const float *x, int64_t n, float scale, float shift, int activation,
                          const float *residual, float *y);

/// Bilinear perspective warp, clamp to border, of `planes` planar float images (src_width x
/// src_height each, sides < 2^22, < 2^31 floats per plane) into `planes` planes of width x height, output
/// rows [row_begin, row_end). Output pixel (i, j) samples the source at m applied to
/// (origin_x + i, origin_y + j), m being the row-major 3x3 output-to-source homography; the
/// definition is PerspectiveWarper's (Swift). Threads may run disjoint row ranges of one warp.
void gs_warp_bilinear_rows(const float *src, int src_width, int src_height, int planes,
                           const double *m, int origin_x, int origin_y,
                           float *dst, int width, int height, int row_begin, int row_end);

/// The rectangle detector's box downscale of planar RGB (src_width x src_height per plane) by an
/// integer scale into three width-wide channels c_k = Σ (w[3k] r + w[3k+1] g) + w[3k+2] b over
/// each scale x scale block, / scale²; output rows [row_begin, row_end). DetectEdges' numerics.
void gs_edge_downscale_rows(const float *rgb, int src_width, int src_height, int scale, const float *weights,
                            float *c0, float *c1, float *c2, int width, int row_begin, int row_end);

/// The rectangle detector's [1 4 6 4 1]/16 blur of a width-wide float plane, rows
/// [row_begin, row_end): along rows (ends clamped), or along columns (height rows, top and
/// bottom clamped; src and dst distinct). DetectEdges' numerics, bit for bit.
void gs_edge_blur_rows(const float *src, float *dst, int width, int row_begin, int row_end);
void gs_edge_blur_columns(const float *src, float *dst, int width, int height, int row_begin, int row_end);

/// Sobel gradient of three width-wide float planes at rows [row_begin, row_end) (each 1 to
/// height - 2) and columns 1 to width - 2: magnitude / 8 of the strongest channel (the first on
/// ties) and its gradient / 8. DetectEdges' numerics, bit for bit.
void gs_edge_sobel_rows(const float *c0, const float *c1, const float *c2, float *magnitude, float *gx, float *gy,
                        int width, int row_begin, int row_end);

// Graph steps (ExecutionPlan, PlanSteps.swift); maps are dense [C][H][W] channel planes.

/// y[i] = act(x[i] + b[i]) (b may be NULL: act(x[i])) for n floats, act one of `Activation`
/// (activation.h: kind, alpha, beta, the channel's PReLU slope). In place (y == x) is allowed.
void gs_activation(const float *x, const float *b, int64_t n, int kind, float alpha, float beta, float slope,
                   float *y);

/// Max pooling of one plane, output rows [row_begin, row_end): window (oy*stride - pad_top,
/// ox*stride - pad_left) of kernel x kernel, cells outside the map ignored.
void gs_max_pool_rows(const float *x, int in_height, int in_width, float *y, int out_width,
                      int kernel, int stride, int pad_top, int pad_left, int row_begin, int row_end);

/// Softmax over `channels` planes `plane` floats apart for pixels [begin, end), max subtracted
/// first. In place (y == x) is allowed.
void gs_softmax_pixels(const float *x, int channels, int64_t plane, int64_t begin, int64_t end, float *y);

/// Softmax over the channels of a map of few pixels, split into parts by ranges of channels
/// (GraphSoftmax): first every part t runs gs_softmax_channels_exp on its channels [channel_begin,
/// channel_end), which writes per pixel its maximum m_t (maximum[plane]), y = exp(x - m_t) and
/// the sum of those (sum[plane]); then, after all parts, gs_softmax_channels_scale multiplies a
/// part's y by exp(m_t - M) / S per pixel, M the largest m_u and S the sum over parts u of
/// sum_u * exp(m_u - M), from all `parts` parts' maxima and sums (part u's at maxima + u * plane,
/// sums + u * plane). A part may be empty. In place (y == x) is allowed.
void gs_softmax_channels_exp(const float *x, int64_t plane, int64_t channel_begin, int64_t channel_end, float *maximum,
                             float *sum, float *y);
void gs_softmax_channels_scale(float *y, int64_t plane, int64_t channel_begin, int64_t channel_end, const float *maxima,
                               const float *sums, int parts, int part);

/// Resize of one plane by an integer scale, output rows [row_begin, row_end): mode 0 nearest
/// (source floor(o / scale)), 1 bilinear with half-pixel centres, edges clamped.
void gs_resize_rows(const float *x, int in_height, int in_width, int scale, int mode, float *y,
                    int row_begin, int row_end);

/// Padding of one plane into out_width-wide rows [row_begin, row_end): zeros, or with
/// `reflect` numpy's reflection (edge not repeated; padding smaller than the side).
/// Fake quantisation (`fake_quant.c`): y = (clamp(round_half_even(x / scale) + zero_point, low,
/// high) - zero_point) * scale, with low/high the int8 or uint8 range.
void gs_fake_quant(const float *x, float *y, int64_t count, float scale, float zero_point, float low, float high);

/// Quantised conditional instance norm (`quantized_instance_norm.c`): `q` holds the ten
/// fake quantisations' (scale, zero point, low, high), 40 floats.
void gs_quantized_instance_norm_parameters(const float *x, int64_t count, float gamma, float beta, const float *q,
                                           float epsilon, float *scale, float *shift);
/// The same from a histogram: `levels[k]` occurs `counts[k]` times in the channel (n levels).
void gs_quantized_instance_norm_parameters_histogram(const float *levels, const int64_t *counts, int n, float gamma,
                                                     float beta, const float *q, float epsilon, float *scale,
                                                     float *shift);
void gs_quantized_instance_norm_apply(const float *x, float *y, int64_t count, float scale, float shift, const float *q,
                                      int relu);

void gs_pad2d_rows(const float *x, int in_height, int in_width, float *y, int out_width,
                   int top, int left, int reflect, int row_begin, int row_end);

/// Name of the instruction set the style convolution runs ("avx512", "avx2+fma" or "portable"),
/// under gs_isa_limit's cap.
const char *gs_cpu_kernel_isa(void);
#endif
