// The epilogue of the uniform-buffer graph convolutions (conv2d_graph_pointwise.glsl,
// conv2d_graph_general.glsl, conv2d_graph_depthwise.glsl): bias, the fused activation and the
// fused fake quantisation, chosen by specialization constants per layer rather than by push
// constants. Lavapipe runs a uniform branch as masked code with a test per block, and with the
// activation's switch, the quantisation's test and the partial-sum tests evaluated for every
// output the 1x1 layers with few input channels spent ~10 ns per stored float (MobileNetV2's
// 16 -> 96 expansion at 112x112: 13 ms, 2.9 GFLOP/s; AMD EPYC Zen 4, 2 cores).
// Needs activation.glsl, fake_quant.glsl and the push block `p` with alpha, beta, qScale,
// qZeroPoint, qLow, qHigh.
layout(constant_id = 10) const uint ACTIVATION = 0u;  // activation.glsl's numbering
layout(constant_id = 11) const bool QUANTIZE = false;
// Input-channel chunks: ACCUMULATE continues the partial sums the previous chunk stored, FINISH
// (the last chunk) applies bias, activation and quantisation.
layout(constant_id = 12) const bool ACCUMULATE = false;
layout(constant_id = 13) const bool FINISH = true;

float epilogue(float sum, float bias, float slope) {
    if (!FINISH) return sum;
    float y = activate(sum + bias, ACTIVATION, p.alpha, p.beta, slope);
    return QUANTIZE ? fakeQuantize(y, p.qScale, p.qZeroPoint, p.qLow, p.qHigh) : y;
}
