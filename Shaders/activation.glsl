// Activations after instance normalisation, numbered like Swift's `Activation`.
vec4 activate(vec4 x, uint activation) {
    if (activation == 1u) return max(x, vec4(0.0));
    // sigmoid = 1 / (1 + exp(-x)), written out as the plan defines it.
    if (activation == 2u) return vec4(1.0) / (vec4(1.0) + exp(-x));
    return x;
}
