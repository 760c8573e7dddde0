// CPU convolution kernels. The same body is compiled for AVX2+FMA and for the baseline
// instruction set; the first call picks one with CPUID, so one binary is fast on current x86
// machines and still runs on older ones (and on other architectures through the portable copy).
#include "ckernels.h"
#include "simd.h"
#include "gs_memory.h"
#include "conv2d_internal.h"
#include <stdlib.h>
#include <string.h>

int64_t gs_conv_packed_weight_count(int cout, int cin, int kernel) {
    int blocks = (cout + GS_CONV_CHANNEL_BLOCK - 1) / GS_CONV_CHANNEL_BLOCK;
    return (int64_t)blocks * cin * kernel * kernel * GS_CONV_CHANNEL_BLOCK;
}

void gs_conv_pack_weights(const float *weights, int cout, int cin, int kernel, float *packed) {
    const int taps = kernel * kernel;
    const int blocks = (cout + GS_CONV_CHANNEL_BLOCK - 1) / GS_CONV_CHANNEL_BLOCK;
    for (int b = 0; b < blocks; b++)
        for (int ci = 0; ci < cin; ci++)
            for (int t = 0; t < taps; t++)
                for (int c = 0; c < GS_CONV_CHANNEL_BLOCK; c++) {
                    int co = b * GS_CONV_CHANNEL_BLOCK + c;
                    *packed++ = co < cout ? weights[((int64_t)co * cin + ci) * taps + t] : 0.0f;
                }
}

#define ISA_TWINS_BODY "conv2d_body.inc"
#define ISA_TWINS_AVX512
#include "isa_twins.h"

typedef void (*conv_fn)(const float *, int64_t, int64_t, const int32_t *, int, int, int,
                        const float *, int, float *, int64_t, int, int, int, double *);

static conv_fn selected_conv(void) {
#if defined(__x86_64__)
    if (gs_has_avx512()) return conv2d_rows_avx512;
    if (gs_has_avx2_fma()) return conv2d_rows_avx2;
#endif
    return conv2d_rows_portable;
}

const char *gs_cpu_kernel_isa(void) {
    return gs_isa_name(gs_isa_level());
}

void gs_conv2d_rows(const float *input, int64_t in_plane_stride, int64_t in_row_stride,
                    const int32_t *col_offset, int cin, int kernel, int stride,
                    const float *packed_weights, int cout,
                    float *output, int64_t out_plane_stride, int out_width,
                    int row_begin, int row_end) {
    selected_conv()(input, in_plane_stride, in_row_stride, col_offset, cin, kernel, stride,
                    packed_weights, cout, output, out_plane_stride, out_width, row_begin, row_end, NULL);
}

// The pad (and the instance-norm apply before it) fused into the convolution's reads. Why: a
// stride-2 layer read its padded input (32 channels of the full-resolution map, 266 MB at
// 1080p) from memory in 96 interleaved row streams, which the prefetchers cannot follow: one
// core ran contract.1 at 1080p at 57 GFLOP/s, the same kernel on three rows that stay in cache
// at 136 (82 % of the core's FMA peak). Made band by band, the padded rows are in L2 when the
// kernel reads them, and the map is read once, row after row, instead of written and read again
// by the apply and the pad.
// One band loop for both precisions: `bf16` makes the ring of channel pairs (gs_bf16_pack_pairs
// of two padded rows made in fp32 first) and runs the bf16 micro-kernel on it.
static int conv2d_banded(const gs_conv_band_input *in, int64_t row_stride, const int32_t *col_offset, int cin,
                         int kernel, int stride, const void *packed_weights, int bf16, int cout, float *output,
                         int64_t out_plane_stride, int out_width, int row_begin, int row_end, int band_rows,
                         double *moments) {
    if (band_rows > row_end - row_begin) band_rows = row_end - row_begin;
    if (band_rows < 1) return 0;
    const int slots = (band_rows - 1) * stride + kernel;
    const int64_t plane = (int64_t)slots * row_stride;
    // The ring's planes: one per channel, or per channel pair (32-bit words either way).
    const int planes = bf16 ? (cin + 1) / 2 : cin;
    // Identity and relu are applied as the rows are padded; other activations first, into a row.
    const int two_pass = in->scale && in->activation > 1;
    // bf16: the pair's two padded rows in fp32 before they are packed.
    const size_t pair_rows = bf16 ? 2 * (size_t)row_stride : 0;
    float *ring = gs_thread_scratch(sizeof(float) * ((size_t)planes * (size_t)plane + (two_pass ? (size_t)in->width : 0) + pair_rows));
    if (!ring) return -1;
    float *normalized = ring + (size_t)planes * (size_t)plane;
    float *pair_lo = normalized + (two_pass ? (size_t)in->width : 0), *pair_hi = pair_lo + row_stride;
    // The columns past a row's end that the last tile's whole-vector loads reach (up to 64 floats
    // from its tap's offset) feed only outputs that are dropped, but must not hold denormals,
    // which slow every FMA they enter: they are zeroed as rows are made. (Zeroing all the slack
    // of every row the buffer could hold was 4-5 % of a 512x512 run.)
    int reach = 0;
    for (int kx = 0; kx < kernel; kx++)
        if (col_offset[kx] + (out_width + 63) / 64 * 64 > reach) reach = col_offset[kx] + (out_width + 63) / 64 * 64;
    if (reach > row_stride) reach = (int)row_stride;
    const int zeroed = reach > in->padded_width ? reach - in->padded_width : 0;
    const conv_fn conv = bf16 ? NULL : selected_conv();
    const gs_conv_bf16_fn conv_bf16 = bf16 ? gs_conv_bf16_selected() : NULL;
    // One padded row of channel ci into dst.
#define MAKE_ROW(ci, r, dst)                                                                                           \
    do {                                                                                                               \
        const float *src_ = in->source + (ci) * in->plane + (int64_t)in->rows[(r)] * in->width;                        \
        if (two_pass) {                                                                                                \
            gs_instance_norm_apply(src_, in->width, in->scale[ci], in->shift[ci], in->activation, NULL, normalized);   \
            gs_pad_row(normalized, in->runs, in->run_count, (dst));                                                    \
        } else if (in->scale) {                                                                                        \
            gs_pad_row_normalized(src_, in->runs, in->run_count, in->scale[ci], in->shift[ci], in->activation, (dst)); \
        } else {                                                                                                       \
            gs_pad_row(src_, in->runs, in->run_count, (dst));                                                          \
        }                                                                                                              \
    } while (0)
    if (bf16) memset(pair_hi, 0, sizeof(float) * (size_t)in->padded_width);  // an odd last channel's partner
    int have_first = 0, have_count = 0;  // padded rows [have_first, + have_count) are in slots 0...
    for (int y0 = row_begin; y0 < row_end; y0 += band_rows) {
        const int rows = row_end - y0 < band_rows ? row_end - y0 : band_rows;
        const int first = y0 * stride, count = (rows - 1) * stride + kernel;
        // Rows the previous band made that this one needs too move to the front.
        int kept = 0;
        if (have_count > 0 && first >= have_first && first < have_first + have_count) {
            kept = have_first + have_count - first;
            if (kept > count) kept = count;
            if (first > have_first)
                for (int ci = 0; ci < planes; ci++)
                    memmove(ring + ci * plane, ring + ci * plane + (int64_t)(first - have_first) * row_stride,
                            sizeof(float) * (size_t)kept * (size_t)row_stride);
        }
        for (int r = kept; r < count; r++) {
            for (int ci = 0; ci < planes; ci++) {
                float *dst = ring + ci * plane + (int64_t)r * row_stride;
                if (bf16) {
                    MAKE_ROW(2 * ci, first + r, pair_lo);
                    if (2 * ci + 1 < cin) MAKE_ROW(2 * ci + 1, first + r, pair_hi);
                    gs_bf16_pack_pairs(pair_lo, pair_hi, in->padded_width, (uint32_t *)dst);
                } else {
                    MAKE_ROW(ci, first + r, dst);
                }
                if (zeroed) memset(dst + in->padded_width, 0, sizeof(float) * (size_t)zeroed);
            }
        }
#undef MAKE_ROW
        have_first = first;
        have_count = count;
        if (bf16)
            conv_bf16((const uint32_t *)ring, plane, row_stride, col_offset, planes, kernel, stride,
                      (const uint32_t *)packed_weights, cout, output + (int64_t)y0 * out_width, out_plane_stride,
                      out_width, 0, rows, moments);
        else
            conv(ring, plane, row_stride, col_offset, cin, kernel, stride, (const float *)packed_weights, cout,
                 output + (int64_t)y0 * out_width, out_plane_stride, out_width, 0, rows, moments);
    }
    return 0;
}

int gs_conv2d_banded(const gs_conv_band_input *in, int64_t row_stride, const int32_t *col_offset, int cin,
                     int kernel, int stride, const float *packed_weights, int cout, float *output,
                     int64_t out_plane_stride, int out_width, int row_begin, int row_end, int band_rows,
                     double *moments) {
    return conv2d_banded(in, row_stride, col_offset, cin, kernel, stride, packed_weights, 0, cout, output,
                         out_plane_stride, out_width, row_begin, row_end, band_rows, moments);
}

int gs_conv2d_banded_bf16(const gs_conv_band_input *in, int64_t row_stride, const int32_t *col_offset, int cin,
                          int kernel, int stride, const uint32_t *packed_weights, int cout, float *output,
                          int64_t out_plane_stride, int out_width, int row_begin, int row_end, int band_rows,
                          double *moments) {
    return conv2d_banded(in, row_stride, col_offset, cin, kernel, stride, packed_weights, 1, cout, output,
                         out_plane_stride, out_width, row_begin, row_end, band_rows, moments);
}
