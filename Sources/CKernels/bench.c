// Micro-benchmarks for the profiler's roofline: peak FMA throughput and streaming copy
// bandwidth of one core (the caller runs one copy per core). Same AVX2 / portable dispatch
// as conv2d.c.
#include "gs_bench.h"
#include "simd.h"

#define FMA_BODY                                                                        \
    v8f acc[GS_BENCH_FMA_CHAINS];                                                       \
    for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) acc[c] = (v8f){0} + seed * (float)(c + 1); \
    const v8f m = (v8f){0} + 0.999999f, a = (v8f){0} + 1e-7f;                           \
    for (int64_t i = 0; i < iterations; i++) {                                          \
        _Pragma("clang loop unroll(full)")                                              \
        for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) acc[c] = acc[c] * m + a;          \
    }                                                                                   \
    v8f sum = (v8f){0};                                                                 \
    for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) sum += acc[c];                        \
    float total = 0;                                                                    \
    for (int l = 0; l < 8; l++) total += sum[l];                                        \
    return total;

#define COPY_BODY                                                                       \
    for (int64_t i = 0; i < n; i += 32) {                                               \
        v8f x0 = load8(src + i), x1 = load8(src + i + 8);                               \
        v8f x2 = load8(src + i + 16), x3 = load8(src + i + 24);                         \
        store8(dst + i, x0); store8(dst + i + 8, x1);                                   \
        store8(dst + i + 16, x2); store8(dst + i + 24, x3);                             \
    }

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static float fma_avx2(int64_t iterations, float seed) { FMA_BODY }
__attribute__((target("avx2,fma"))) static void copy_avx2(float *dst, const float *src, int64_t n) { COPY_BODY }
#endif
static float fma_portable(int64_t iterations, float seed) { FMA_BODY }
static void copy_portable(float *dst, const float *src, int64_t n) { COPY_BODY }

float gs_bench_fma(int64_t iterations, float seed) {
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) return fma_avx2(iterations, seed);
#endif
    return fma_portable(iterations, seed);
}

int gs_bench_fma_lanes(void) { return GS_BENCH_FMA_CHAINS * 8; }

void gs_bench_copy(float *dst, const float *src, int64_t n) {
    // Whole 32-float blocks in the vector loop, then the tail.
    int64_t body = n / 32 * 32;
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) copy_avx2(dst, src, body); else
#endif
    copy_portable(dst, src, body);
    for (int64_t i = body; i < n; i++) dst[i] = src[i];
}
