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

/// dst[i] = src[columns[i]] for i < count: one padded row gathered from its source row.
void gs_gather_row(const float *src, const int32_t *columns, int count, float *dst);

/// Sum and sum of squares of (x - shift) over n floats, accumulated in float vectors over
/// short runs and combined in double.
void gs_shifted_moments(const float *x, int64_t n, float shift, double *sum, double *squares);

/// y = act(x * scale + shift) (+ residual[i] when residual is not NULL), act 0 = identity,
/// 1 = relu, 2 = sigmoid. In place (y == x) is allowed.
void gs_affine_activation(const float *x, int64_t n, float scale, float shift, int activation,
                          const float *residual, float *y);

/// Bilinear perspective warp, clamp to border, of `planes` planar float images (src_width x
/// src_height each, sides < 2^22, < 2^31 floats per plane) into `planes` planes of width x height, output
/// rows [row_begin, row_end). Output pixel (i, j) samples the source at m applied to
/// (origin_x + i, origin_y + j), m being the row-major 3x3 output-to-source homography; the
/// definition is PerspectiveWarper's (Swift). Threads may run disjoint row ranges of one warp.
void gs_warp_bilinear_rows(const float *src, int src_width, int src_height, int planes,
                           const double *m, int origin_x, int origin_y,
                           float *dst, int width, int height, int row_begin, int row_end);

/// Name of the instruction set the kernels dispatch to on this CPU ("avx2+fma" or "portable").
const char *gs_cpu_kernel_isa(void);
#endif
