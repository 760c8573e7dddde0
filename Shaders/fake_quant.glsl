// Fake quantisation (CKernels/fake_quant.c): an ONNX QuantizeLinear and its DequantizeLinear in
// float32, y = (clamp(roundEven(x / scale) + zeroPoint, low, high) - zeroPoint) * scale.
// fake_quant.comp and the epilogues that fuse it into the step before (conv2d_graph.comp,
// add.comp, activation.comp) share this function, so a fused plan computes what the unfused
// one does; a scale of 0 means no quantisation (the fused shaders' default).
float fakeQuantize(float x, float scale, float zeroPoint, float low, float high) {
    if (scale == 0.0) return x;
    float q = clamp(roundEven(x / scale) + zeroPoint, low, high);
    return (q - zeroPoint) * scale;
}
