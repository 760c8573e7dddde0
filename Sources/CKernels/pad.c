// The style network's padding gather (`ExecutionPlan.Pad`, Shaders/pad.comp, CPU/ReflectPad.swift),
// compiled for AVX2+FMA and for the baseline instruction set like the convolution kernel.
#include "ckernels.h"
#include "simd.h"

#define ISA_TWINS_BODY "pad_body.inc"
#include "isa_twins.h"

void gs_gather_row(const float *src, const int32_t *columns, int count, float *dst) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { gather_row_avx2(src, columns, count, dst); return; }
#endif
    gather_row_portable(src, columns, count, dst);
}
