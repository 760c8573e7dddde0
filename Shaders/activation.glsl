// Activations numbered like Swift's `Activation` (CKernels/activation.h is the C twin):
// 0 identity, 1 relu, 2 sigmoid, 3 relu6, 4 leaky relu (x < 0: alpha * x), 5 hard sigmoid
// max(0, min(1, alpha * x + beta)), 6 hard swish x * relu6(x + 3) / 6, 7 PReLU (x < 0: slope * x,
// the channel's slope).
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
    default: return x;
    }
}

// The kinds without parameters (what instance-norm layers use).
vec4 activate(vec4 x, uint activation) { return activate(x, activation, 0.0, 0.0, 0.0); }
