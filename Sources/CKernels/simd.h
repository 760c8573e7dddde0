// Shared by the kernel files: the 8-float vector type and run-time CPU feature detection.
#ifndef GPUSTYLE_SIMD_H
#define GPUSTYLE_SIMD_H
#include <string.h>

typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));

// Macros rather than functions: a function passing 8-float vectors by value would have a
// different ABI in the AVX and the baseline copies of a kernel.
#define load8(p) ({ v8f v_; memcpy(&v_, (p), sizeof v_); v_; })  /* unaligned load */
#define store8(p, v) do { v8f s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)
#define load16(p) ({ v16f v_; memcpy(&v_, (p), sizeof v_); v_; })
#define store16(p, v) do { v16f s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)

/// True when the CPU has AVX2 and FMA (checked once; the answer never changes).
int gs_has_avx2_fma(void);
/// True when the CPU has AVX-512F and AVX-512VL besides AVX2 and FMA.
int gs_has_avx512(void);
#endif
