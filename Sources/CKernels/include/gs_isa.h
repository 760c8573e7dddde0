#ifndef GPUSTYLE_ISA_H
#define GPUSTYLE_ISA_H

/// Instruction-set levels of the CPU kernels' twins (isa_twins.h): 0 portable, 1 AVX2+FMA,
/// 2 AVX-512 (F + VL, with AVX2+FMA). Every kernel dispatches on gs_isa_level(): the best level
/// this CPU supports, capped by gs_isa_limit (benchmarks and tests force the lower twins).

/// The best level this CPU supports (0 on other architectures).
int gs_isa_supported(void);

/// Caps every kernel at `level` (-1: no cap), process-wide; returns the level now in use
/// (the cap, or the CPU's best when that is lower).
int gs_isa_limit(int level);

/// The level in use: min(supported, cap).
int gs_isa_level(void);

/// "avx512", "avx2+fma" or "portable".
const char *gs_isa_name(int level);

/// gs_isa_level() >= 1 and >= 2: what each kernel's dispatcher asks.
int gs_has_avx2_fma(void);
int gs_has_avx512(void);
#endif
