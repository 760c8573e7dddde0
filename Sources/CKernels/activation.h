// The activations of `Activation` (Model/StyleNetwork.swift), numbered the same way, as one
// inline function the graph kernels share (activation.c, and any kernel that fuses an
// activation into its output). Shaders/activation.glsl is the GLSL twin.
#ifndef GPUSTYLE_ACTIVATION_H
#define GPUSTYLE_ACTIVATION_H
#include <math.h>

enum {
    GS_ACT_IDENTITY = 0,
    GS_ACT_RELU = 1,
    GS_ACT_SIGMOID = 2,
    GS_ACT_RELU6 = 3,
    GS_ACT_LEAKY_RELU = 4,   // x < 0: alpha * x
    GS_ACT_HARD_SIGMOID = 5, // max(0, min(1, alpha * x + beta))
    GS_ACT_HARD_SWISH = 6,   // x * relu6(x + 3) / 6
    GS_ACT_PRELU = 7,        // x < 0: slope * x (slope per channel)
    GS_ACT_GELU = 8,         // x * (1 + erf(x / sqrt 2)) / 2
};

/// erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): a polynomial and one expf, the same
/// formula as activation.glsl's (GLSL has no erf), so both paths round alike; ONNX Runtime's
/// exact Erf differs from it by less than the fixtures' 2e-6 tolerance.
static inline float gs_erf(float x) {
    float z = fabsf(x);
    float t = 1.0f / (1.0f + 0.3275911f * z);
    float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    float e = 1.0f - poly * expf(-z * z);
    return x < 0.0f ? -e : e;
}

/// `kind` applied to x; alpha/beta as above, `slope` the channel's PReLU slope.
static inline float gs_activate(float x, int kind, float alpha, float beta, float slope) {
    switch (kind) {
    case GS_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case GS_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case GS_ACT_RELU6: return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    case GS_ACT_LEAKY_RELU: return x < 0.0f ? alpha * x : x;
    case GS_ACT_HARD_SIGMOID: {
        float v = alpha * x + beta;
        return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
    }
    case GS_ACT_HARD_SWISH: {
        float r = x + 3.0f;
        r = r > 0.0f ? (r < 6.0f ? r : 6.0f) : 0.0f;
        return x * r / 6.0f;
    }
    case GS_ACT_PRELU: return x < 0.0f ? slope * x : x;
    case GS_ACT_GELU: return 0.5f * x * (1.0f + gs_erf(x * 0.70710678118654752f));
    default: return x;
    }
}

/// e^x in every lane of a float vector of type T (IT: the int vector of its size), as Cephes'
/// expf: x = n ln 2 + r with |r| <= ln 2 / 2, a degree-6 polynomial in r, times 2^n made in the
/// exponent bits; within 2 ulp of expf. x is clamped to [-87, 88] first, so no lane is
/// subnormal (e^-87 = 1.6e-38) or infinite: expf's underflow and subnormal arithmetic took GELU
/// in the convolutions' epilogues to ~40 ns a value on large negative inputs. A NaN lane gives a
/// finite value (the clamp drops it); the callers keep NaN through their other factor.
#define GS_VEXP(T, IT, x)                                                                            \
    ({                                                                                               \
        const T vexp_x = __builtin_elementwise_min(__builtin_elementwise_max((x), (T){0} - 87.0f), (T){0} + 88.0f); \
        const T vexp_n = __builtin_elementwise_floor(vexp_x * 1.44269504088896341f + 0.5f);         \
        const T vexp_r = vexp_x - vexp_n * 0.693359375f + vexp_n * 2.12194440e-4f;                  \
        T vexp_p = 1.9875691500e-4f * vexp_r + 1.3981999507e-3f;                                    \
        vexp_p = vexp_p * vexp_r + 8.3334519073e-3f;                                                \
        vexp_p = vexp_p * vexp_r + 4.1665795894e-2f;                                                \
        vexp_p = vexp_p * vexp_r + 1.6666665459e-1f;                                                \
        vexp_p = vexp_p * vexp_r + 5.0000001201e-1f;                                                \
        vexp_p = vexp_p * (vexp_r * vexp_r) + vexp_r + 1.0f;                                        \
        vexp_p * (T)((__builtin_convertvector(vexp_n, IT) + 127) << 23);                            \
    })

/// GELU in every lane: gs_activate's GS_ACT_GELU (the same Abramowitz & Stegun erf) with
/// GS_VEXP for its exp.
#define GS_VGELU(T, IT, v)                                                                           \
    ({                                                                                               \
        const T vgelu_v = (v);                                                                       \
        const T vgelu_z = __builtin_elementwise_abs(vgelu_v * 0.70710678118654752f);                 \
        const T vgelu_t = 1.0f / (1.0f + 0.3275911f * vgelu_z);                                      \
        const T vgelu_q = vgelu_t * (0.254829592f + vgelu_t * (-0.284496736f + vgelu_t * (1.421413741f   \
                          + vgelu_t * (-1.453152027f + vgelu_t * 1.061405429f))));                   \
        const T vgelu_e = 1.0f - vgelu_q * GS_VEXP(T, IT, -vgelu_z * vgelu_z);                       \
        0.5f * vgelu_v * (1.0f + __builtin_elementwise_copysign(vgelu_e, vgelu_v));                  \
    })
#endif
