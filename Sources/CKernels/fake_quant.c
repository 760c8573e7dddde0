// Fake quantisation: an ONNX QuantizeLinear followed by the DequantizeLinear of the same scale
// and zero point, in float32 as onnxruntime computes them (ONNX operator docs, QuantizeLinear:
// y = saturate(round(x / scale) + zero_point), round half to even; DequantizeLinear:
// (y - zero_point) * scale). The quotient is a true division, not a product by 1 / scale, so a
// value on a rounding tie lands where onnxruntime's lands.
//
// Clamping the quotient to [low - zero_point, high - zero_point] before rounding gives the same
// result as rounding then saturating (the bounds are integers and rounding is monotonic), and
// keeps it under 2^22 in magnitude, where adding and subtracting 1.5 x 2^23 rounds it to an
// integer, half to even, in the default rounding mode: no libm call (nearbyintf is one on
// baseline x86-64), so the loop vectorises. NaN becomes the lower bound. The arithmetic is
// gs_fake_quant_value (fake_quant.h), which the fused epilogues share.
#include "ckernels.h"
#include "fake_quant.h"

void gs_fake_quant(const float *x, float *y, int64_t count, float scale, float zero_point, float low, float high) {
    const float lo = low - zero_point, hi = high - zero_point;
    for (int64_t i = 0; i < count; i++) y[i] = gs_fake_quant_value(x[i], scale, lo, hi);
}
