// Fake quantisation: an ONNX QuantizeLinear followed by the DequantizeLinear of the same scale
// and zero point, in float32 as onnxruntime computes them (ONNX operator docs, QuantizeLinear:
// y = saturate(round(x / scale) + zero_point), round half to even; DequantizeLinear:
// (y - zero_point) * scale). The quotient is a true division, not a product by 1 / scale, so a
// value on a rounding tie lands where onnxruntime's lands.
#include "ckernels.h"
#include <math.h>

void gs_fake_quant(const float *x, float *y, int64_t count, float scale, float zero_point, float low, float high) {
    for (int64_t i = 0; i < count; i++) {
        float q = nearbyintf(x[i] / scale) + zero_point;  // the default rounding mode: half to even
        q = fminf(fmaxf(q, low), high);
        y[i] = (q - zero_point) * scale;
    }
}
