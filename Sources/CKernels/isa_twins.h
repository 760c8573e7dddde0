// Compiles a kernel body twice: for AVX2+FMA (x86-64 only) and for the baseline instruction set.
// The including file defines ISA_TWINS_BODY as the body's file name; inside the body, ISA is
// `avx2` or `portable`, and CONCAT(name_, ISA) names each copy's functions. The caller picks a
// copy at run time with gs_has_avx2_fma(), so one binary is fast on current x86 machines and
// still runs on older ones and on other architectures.
//
// A file that also defines ISA_TWINS_AVX512 gets a third copy, ISA `avx512` (AVX-512F/VL plus
// AVX2+FMA), picked with gs_has_avx512(); the other files keep their two copies. ISA_LEVEL is
// 2, 1 or 0 in the avx512, avx2 and portable copies (for #if).
#ifndef CONCAT
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
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
