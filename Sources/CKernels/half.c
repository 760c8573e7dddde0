// fp16 <-> fp32 conversion of the tiled stylizer's host tensors (TensorStore), round to
// nearest even. F16C (vcvtps2ph/vcvtph2ps, 8 values per instruction) when the CPU has it, else
// the compiler's _Float16 conversions (the same rounding, one value at a time).
#include "ckernels.h"
#include <stdbool.h>
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx,f16c")))
static void to_half_f16c(const float *src, int64_t n, uint16_t *dst) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(dst + i), h);
    }
    for (; i < n; i++) dst[i] = (uint16_t)_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(src[i]), _MM_FROUND_TO_NEAREST_INT), 0);
}

__attribute__((target("avx,f16c")))
static void from_half_f16c(const uint16_t *src, int64_t n, float *dst) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++) dst[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(src[i])));
}

static bool has_f16c(void) {
    static int cached = -1;
    if (cached < 0) cached = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
    return cached;
}
#endif

void gs_float_to_half(const float *src, int64_t n, uint16_t *dst) {
#if defined(__x86_64__)
    if (has_f16c()) { to_half_f16c(src, n, dst); return; }
#endif
    for (int64_t i = 0; i < n; i++) {
        _Float16 h = (_Float16)src[i];
        __builtin_memcpy(dst + i, &h, 2);
    }
}

void gs_half_to_float(const uint16_t *src, int64_t n, float *dst) {
#if defined(__x86_64__)
    if (has_f16c()) { from_half_f16c(src, n, dst); return; }
#endif
    for (int64_t i = 0; i < n; i++) {
        _Float16 h;
        __builtin_memcpy(&h, src + i, 2);
        dst[i] = (float)h;
    }
}
