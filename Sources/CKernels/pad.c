// The style network's padding rows (`ExecutionPlan.Pad`, Shaders/pad.comp, CPU/ReflectPad.swift),
// compiled for AVX2+FMA and for the baseline instruction set like the convolution kernel.
#include "ckernels.h"
#include "simd.h"

#define ISA_TWINS_BODY "pad_body.inc"
#include "isa_twins.h"

int gs_pad_runs(const int32_t *columns, int count, gs_pad_run *runs) {
    int n = 0;
    for (int i = 0; i < count;) {
        int best = 1, mode = 1;
        for (int m = 1; m <= 3; m++) {
            int t = 1;
            while (i + t < count && columns[i + t] == columns[i] + (m == 1 ? t : m == 2 ? 2 * t : t / 2)) t++;
            if (t > best) best = t, mode = m;
        }
        // A short stretch is taken one column at a time, so that a long run starting just after
        // it is found (an upsampled row's repeated pairs start one column after its border).
        if (best < 8) best = 1, mode = 1;
        runs[n++] = (gs_pad_run){i, columns[i], best, mode};
        i += best;
    }
    return n;
}

void gs_pad_row_normalized(const float *src, const gs_pad_run *runs, int run_count, float scale, float shift, int relu,
                           float *dst) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { pad_row_normalized_avx2(src, runs, run_count, scale, shift, relu, dst); return; }
#endif
    pad_row_normalized_portable(src, runs, run_count, scale, shift, relu, dst);
}

void gs_pad_row(const float *src, const gs_pad_run *runs, int run_count, float *dst) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { pad_row_avx2(src, runs, run_count, dst); return; }
#endif
    pad_row_portable(src, runs, run_count, dst);
}
