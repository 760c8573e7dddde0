// Compiles a kernel body twice: for AVX2+FMA (x86-64 only) and for the baseline instruction set.
// The including file defines ISA_TWINS_BODY as the body's file name; inside the body, ISA is
// `avx2` or `portable`, and CONCAT(name_, ISA) names each copy's functions. The caller picks a
// copy at run time with gs_has_avx2_fma(), so one binary is fast on current x86 machines and
// still runs on older ones and on other architectures.
//
// A file that also defines ISA_TWINS_AVX512 gets a third copy, ISA `avx512` (AVX-512F/VL plus
// AVX2+FMA), picked with gs_has_avx512(); the other files keep their two copies. ISA_LEVEL is
// 2, 1 or 0 in the avx512, avx2 and portable copies (for #if).
//
// A file that also defines ISA_TWINS_AVX512BF16 gets a fourth copy, ISA `avx512bf16` (the
// avx512 copy's features plus AVX512_BF16, ISA_LEVEL 3), picked with gs_has_avx512_bf16(); the
// bf16 kernels use VDPBF16PS there and emulate it in the other copies. (An AMX twin would be a
// fifth copy beside it, picked with its own cpuid check.)
#ifndef CONCAT
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#endif

#if defined(__x86_64__) && defined(ISA_TWINS_AVX512BF16)
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx512bf16,avx2,fma"))), apply_to = function)
#define ISA avx512bf16
#define ISA_LEVEL 3
#include ISA_TWINS_BODY
#undef ISA
#undef ISA_LEVEL
#pragma clang attribute pop
#endif

#if defined(__x86_64__) && defined(ISA_TWINS_AVX512)
#pragma clang attribute push (__attribute__((target("avx512f,avx512vl,avx2,fma"))), apply_to = function)
#define ISA avx512
#define ISA_LEVEL 2
#include ISA_TWINS_BODY
#undef ISA
#undef ISA_LEVEL
#pragma clang attribute pop
#endif

#if defined(__x86_64__)
#pragma clang attribute push (__attribute__((target("avx2,fma"))), apply_to = function)
#define ISA avx2
#define ISA_LEVEL 1
#include ISA_TWINS_BODY
#undef ISA
#undef ISA_LEVEL
#pragma clang attribute pop
#endif

#define ISA portable
#define ISA_LEVEL 0
#include ISA_TWINS_BODY
#undef ISA
#undef ISA_LEVEL
#undef ISA_TWINS_BODY
#undef ISA_TWINS_AVX512
#undef ISA_TWINS_AVX512BF16
