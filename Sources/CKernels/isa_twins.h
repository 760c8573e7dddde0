// Compiles a kernel body twice: for AVX2+FMA (x86-64 only) and for the baseline instruction set.
// The including file defines ISA_TWINS_BODY as the body's file name; inside the body, ISA is
// `avx2` or `portable`, and CONCAT(name_, ISA) names each copy's functions. The caller picks a
// copy at run time with gs_has_avx2_fma(), so one binary is fast on current x86 machines and
// still runs on older ones and on other architectures.
#ifndef CONCAT
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#endif

#if defined(__x86_64__)
#pragma clang attribute push (__attribute__((target("avx2,fma"))), apply_to = function)
#define ISA avx2
#include ISA_TWINS_BODY
#undef ISA
#pragma clang attribute pop
#endif

#define ISA portable
#include ISA_TWINS_BODY
#undef ISA
#undef ISA_TWINS_BODY
