#ifndef GPUSTYLE_BENCH_H
#define GPUSTYLE_BENCH_H
#include <stdint.h>

/// Independent FMA chains held in registers (GS_BENCH_FMA_CHAINS vectors of 16 floats on
/// AVX-512, 8 otherwise), each advanced `iterations` times: iterations * gs_bench_fma_lanes()
/// FMAs, 2 flops each. The result only defeats dead-code elimination. The instruction set is
/// the kernels' (gs_isa_level, so `--isa` caps it too).
#define GS_BENCH_FMA_CHAINS 12
float gs_bench_fma(int64_t iterations, float seed);

/// Floats of FMA work one gs_bench_fma iteration does (chains x lanes) at the current level.
int gs_bench_fma_lanes(void);

/// Streams n floats from src to dst with 32-byte vector loads and stores (a memcpy-like copy
/// for the bandwidth benchmark; n a multiple of 8).
void gs_bench_copy(float *dst, const float *src, int64_t n);
#endif
