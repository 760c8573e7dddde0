// CPU convolution kernels. The same body is compiled for AVX2+FMA and for the baseline
// instruction set; the first call picks one with CPUID, so one binary is fast on current x86
// machines and still runs on older ones (and on other architectures through the portable copy).
#include "ckernels.h"
#include "simd.h"

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
                        const float *, int, float *, int64_t, int, int, int);

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
                    packed_weights, cout, output, out_plane_stride, out_width, row_begin, row_end);
}
