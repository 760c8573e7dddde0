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

/// Whether this CPU has AVX512_BF16 (VDPBF16PS: pairs of bf16 products summed into fp32) beside
/// AVX-512F/VL.
int gs_bf16_supported(void);

/// Whether the bf16 kernels run VDPBF16PS: the CPU has it, the level in use is avx512 and
/// gs_bf16_emulate has not turned it off. Otherwise they emulate it with fp32 FMAs in the twin of
/// the level in use (the same products, exact in fp32, and sums; for tests on any CPU).
int gs_has_avx512_bf16(void);

/// Tests: 1 makes the bf16 kernels emulate VDPBF16PS even where the CPU has it; 0 undoes it.
void gs_bf16_emulate(int on);

/// Precision of the style network's direct convolutions (gs_conv2d_banded_bf16; Winograd stays fp32):
/// GS_PRECISION_FP32 (default) or GS_PRECISION_BF16 (inputs and weights rounded to bf16,
/// products summed in fp32). Process-wide like the level cap; the caller (PackedConvolution)
/// reads it at each run.
#define GS_PRECISION_FP32 0
#define GS_PRECISION_BF16 1
int gs_conv_precision(void);
void gs_conv_precision_set(int precision);
#endif
