// Micro-benchmarks for the profiler's roofline: peak FMA throughput and streaming copy
// bandwidth of one core (the caller runs one copy per core), on the widest vectors the kernels
// use (gs_isa_level: AVX-512, AVX2+FMA or portable). The AVX2 figure alone put the
// graph convolutions' AVX-512 kernels at "74 % of peak" when they ran at 40 % of the
// AVX-512 peak (this machine: 2 x 8-float FMAs 184, 2 x 16-float FMAs 300 GFLOP/s, 2 threads).
#include "gs_bench.h"
#include "simd.h"

#define FMA_BODY(V, LANES)                                                              \
    V acc[GS_BENCH_FMA_CHAINS];                                                         \
    for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) acc[c] = (V){0} + seed * (float)(c + 1); \
    const V m = (V){0} + 0.999999f, a = (V){0} + 1e-7f;                                 \
    for (int64_t i = 0; i < iterations; i++) {                                          \
        _Pragma("clang loop unroll(full)")                                              \
        for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) acc[c] = acc[c] * m + a;          \
    }                                                                                   \
    V sum = (V){0};                                                                     \
    for (int c = 0; c < GS_BENCH_FMA_CHAINS; c++) sum += acc[c];                        \
    float total = 0;                                                                    \
    for (int l = 0; l < LANES; l++) total += sum[l];                                    \
    return total;

#define COPY_BODY                                                                       \
    for (int64_t i = 0; i < n; i += 32) {                                               \
        v8f x0 = load8(src + i), x1 = load8(src + i + 8);                               \
        v8f x2 = load8(src + i + 16), x3 = load8(src + i + 24);                         \
        store8(dst + i, x0); store8(dst + i + 8, x1);                                   \
        store8(dst + i + 16, x2); store8(dst + i + 24, x3);                             \
    }

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vl,avx2,fma"))) static float fma_avx512(int64_t iterations, float seed) { FMA_BODY(v16f, 16) }
__attribute__((target("avx2,fma"))) static float fma_avx2(int64_t iterations, float seed) { FMA_BODY(v8f, 8) }
__attribute__((target("avx2,fma"))) static void copy_avx2(float *dst, const float *src, int64_t n) { COPY_BODY }
#endif
static float fma_portable(int64_t iterations, float seed) { FMA_BODY(v8f, 8) }
static void copy_portable(float *dst, const float *src, int64_t n) { COPY_BODY }

float gs_bench_fma(int64_t iterations, float seed) {
#if defined(__x86_64__)
    if (gs_has_avx512()) return fma_avx512(iterations, seed);
    if (gs_has_avx2_fma()) return fma_avx2(iterations, seed);
#endif
    return fma_portable(iterations, seed);
}

int gs_bench_fma_lanes(void) { return GS_BENCH_FMA_CHAINS * (gs_has_avx512() ? 16 : 8); }

void gs_bench_copy(float *dst, const float *src, int64_t n) {
    // Whole 32-float blocks in the vector loop, then the tail.
    int64_t body = n / 32 * 32;
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) copy_avx2(dst, src, body); else
#endif
    copy_portable(dst, src, body);
    for (int64_t i = body; i < n; i++) dst[i] = src[i];
}
