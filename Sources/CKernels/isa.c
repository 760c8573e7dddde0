// The one place the CPU kernels learn which twin to run (see gs_isa.h).
#include "gs_isa.h"

static int cap = -1;

int gs_isa_supported(void) {
#if defined(__x86_64__)
    static int cached = -1;  // written by whichever thread asks first; all write the same value
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        const int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
        value = avx512 ? 2 : avx2 ? 1 : 0;
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return 0;
#endif
}

int gs_isa_level(void) {
    const int limit = __atomic_load_n(&cap, __ATOMIC_RELAXED), best = gs_isa_supported();
    return limit >= 0 && limit < best ? limit : best;
}

int gs_isa_limit(int level) {
    __atomic_store_n(&cap, level, __ATOMIC_RELAXED);
    return gs_isa_level();
}

const char *gs_isa_name(int level) {
    switch (level) {
    case 2: return "avx512";
    case 1: return "avx2+fma";
    default: return "portable";
    }
}

int gs_has_avx2_fma(void) { return gs_isa_level() >= 1; }
int gs_has_avx512(void) { return gs_isa_level() >= 2; }

int gs_bf16_supported(void) {
#if defined(__x86_64__)
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = gs_isa_supported() >= 2 && __builtin_cpu_supports("avx512bf16");
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return 0;
#endif
}

static int emulate_bf16 = 0, precision = GS_PRECISION_FP32;

int gs_has_avx512_bf16(void) {
    return gs_bf16_supported() && gs_isa_level() >= 2 && !__atomic_load_n(&emulate_bf16, __ATOMIC_RELAXED);
}

void gs_bf16_emulate(int on) { __atomic_store_n(&emulate_bf16, on ? 1 : 0, __ATOMIC_RELAXED); }

int gs_conv_precision(void) { return __atomic_load_n(&precision, __ATOMIC_RELAXED); }

void gs_conv_precision_set(int value) { __atomic_store_n(&precision, value, __ATOMIC_RELAXED); }
