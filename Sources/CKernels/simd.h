// Shared by the kernel files: the 8-float vector type and run-time CPU feature detection.
#ifndef GPUSTYLE_SIMD_H
#define GPUSTYLE_SIMD_H
#include <string.h>

typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef int v8i __attribute__((vector_size(32)));
typedef int v16i __attribute__((vector_size(64)));

// Macros rather than functions: a function passing 8-float vectors by value would have a
// different ABI in the AVX and the baseline copies of a kernel.
#define load8(p) ({ v8f v_; memcpy(&v_, (p), sizeof v_); v_; })  /* unaligned load */
#define store8(p, v) do { v8f s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)
#define load16(p) ({ v16f v_; memcpy(&v_, (p), sizeof v_); v_; })
#define store16(p, v) do { v16f s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)

// gs_has_avx2_fma() / gs_has_avx512(): the level in use, CPU support and gs_isa_limit's cap.
#include "gs_isa.h"
#endif
