// Softmax over the channels of each pixel of a dense [C][H][W] map, compiled for AVX2+FMA and
// the baseline instruction set (isa_twins.h): the exponentials are most of its work (the text
// recogniser's 6906 classes at 40 steps: 276k of them), by GS_VEXP 8 lanes at a time, arguments
// clamped at -87 so that no subnormal appears. One core, 6906 x 40, best of 50: expf 0.95 ms,
// these 0.20 ms; 16-lane vectors took 0.38 (40 pixels are 3 vectors with one a half, and the
// compiler's 64-float loops for the max and the division ran their scalar remainders).
// The channel-split pair (gs_softmax_channels_exp, gs_softmax_channels_scale) has an AVX-512 twin
// as well: its 16-lane vectors end a row with a masked load and store instead of a padded copy.
#include "ckernels.h"
#include "activation.h"
#include "simd.h"
#include <math.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define ISA_TWINS_BODY "softmax_body.inc"
#define ISA_TWINS_AVX512
#include "isa_twins.h"

void gs_softmax_pixels(const float *x, int channels, int64_t plane, int64_t begin, int64_t end, float *y) {
#if defined(__x86_64__)
    if (gs_has_avx512()) { softmax_pixels_avx512(x, channels, plane, begin, end, y); return; }
    if (gs_has_avx2_fma()) { softmax_pixels_avx2(x, channels, plane, begin, end, y); return; }
#endif
    softmax_pixels_portable(x, channels, plane, begin, end, y);
}

void gs_softmax_channels_exp(const float *x, int64_t plane, int64_t channel_begin, int64_t channel_end, float *maximum,
                             float *sum, float *y) {
#if defined(__x86_64__)
    if (gs_has_avx512()) { softmax_channels_exp_avx512(x, plane, channel_begin, channel_end, maximum, sum, y); return; }
    if (gs_has_avx2_fma()) { softmax_channels_exp_avx2(x, plane, channel_begin, channel_end, maximum, sum, y); return; }
#endif
    softmax_channels_exp_portable(x, plane, channel_begin, channel_end, maximum, sum, y);
}

void gs_softmax_channels_scale(float *y, int64_t plane, int64_t channel_begin, int64_t channel_end, const float *maxima,
                               const float *sums, int parts, int part) {
#if defined(__x86_64__)
    if (gs_has_avx512()) { softmax_channels_scale_avx512(y, plane, channel_begin, channel_end, maxima, sums, parts, part); return; }
    if (gs_has_avx2_fma()) { softmax_channels_scale_avx2(y, plane, channel_begin, channel_end, maxima, sums, parts, part); return; }
#endif
    softmax_channels_scale_portable(y, plane, channel_begin, channel_end, maxima, sums, parts, part);
}
