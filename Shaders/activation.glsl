// Activations numbered like Swift's `Activation` (CKernels/activation.h is the C twin):
// 0 identity, 1 relu, 2 sigmoid, 3 relu6, 4 leaky relu (x < 0: alpha * x), 5 hard sigmoid
// max(0, min(1, alpha * x + beta)), 6 hard swish x * relu6(x + 3) / 6, 7 PReLU (x < 0: slope * x,
// the channel's slope), 8 GELU x * (1 + erf(x / sqrt 2)) / 2.

// erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7; GLSL has no erf): the formula of
// activation.h's gs_erf.
vec4 erf4(vec4 x) {
    vec4 z = abs(x);
    vec4 t = 1.0 / (1.0 + 0.3275911 * z);
    vec4 poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    return sign(x) * (1.0 - poly * exp(-z * z));
}
vec4 gelu4(vec4 x) { return 0.5 * x * (1.0 + erf4(x * 0.70710678118654752)); }
float activate(float x, uint kind, float alpha, float beta, float slope) {
    switch (kind) {
    case 1u: return max(x, 0.0);
    // sigmoid = 1 / (1 + exp(-x)), written out as the plan defines it.
    case 2u: return 1.0 / (1.0 + exp(-x));
    case 3u: return clamp(x, 0.0, 6.0);
    case 4u: return x < 0.0 ? alpha * x : x;
    case 5u: return clamp(alpha * x + beta, 0.0, 1.0);
    case 6u: return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;
    case 7u: return x < 0.0 ? slope * x : x;
    case 8u: return gelu4(vec4(x)).x;
    default: return x;
    }
}

vec4 activate(vec4 x, uint kind, float alpha, float beta, float slope) {
    switch (kind) {
    case 1u: return max(x, vec4(0.0));
    case 2u: return vec4(1.0) / (vec4(1.0) + exp(-x));
    case 3u: return clamp(x, vec4(0.0), vec4(6.0));
    case 4u: return mix(x, alpha * x, lessThan(x, vec4(0.0)));
    case 5u: return clamp(alpha * x + beta, vec4(0.0), vec4(1.0));
    case 6u: return x * clamp(x + 3.0, vec4(0.0), vec4(6.0)) / 6.0;
    case 7u: return mix(x, slope * x, lessThan(x, vec4(0.0)));
    case 8u: return gelu4(x);
    default: return x;
    }
}

// The kinds without parameters (what instance-norm layers use).
vec4 activate(vec4 x, uint activation) { return activate(x, activation, 0.0, 0.0, 0.0); }
