// Shared by conv2d.c and conv2d_bf16.c (not part of the module's interface).
#ifndef GPUSTYLE_CONV2D_INTERNAL_H
#define GPUSTYLE_CONV2D_INTERNAL_H
#include <stdint.h>

/// A twin of the bf16 micro-kernel over output rows (conv2d_body.inc with CONV_BF16): the input
/// and weights are bf16 pairs, `pairs` the input's channel pairs.
typedef void (*gs_conv_bf16_fn)(const uint32_t *, int64_t, int64_t, const int32_t *, int, int, int, const uint32_t *,
                                int, float *, int64_t, int, int, int, double *);

/// The twin for the level in use (VDPBF16PS where gs_has_avx512_bf16).
gs_conv_bf16_fn gs_conv_bf16_selected(void);

/// dst[i] = gs_bf16_pair(lo[i], hi[i]) for i < n, in the level's vectors.
void gs_bf16_pack_pairs(const float *lo, const float *hi, int n, uint32_t *dst);
#endif
