// Softmax over the channels of each pixel of a dense [C][H][W] map.
#include "ckernels.h"
#include <math.h>

void gs_softmax_pixels(const float *x, int channels, int64_t plane, int64_t begin, int64_t end, float *y) {
    // Blocks of pixels, channel planes walked in order (contiguous, vectorisable inner loops):
    // the maximum, then exp(x - max) and its sum, then the division. In place (y == x) is safe:
    // each pass reads an element before writing it, and the last reads only y.
    enum { BLOCK = 256 };
    float maximum[BLOCK], sum[BLOCK];
    for (int64_t start = begin; start < end; start += BLOCK) {
        const int n = (int)(end - start < BLOCK ? end - start : BLOCK);
        for (int i = 0; i < n; i++) { maximum[i] = -INFINITY; sum[i] = 0; }
        for (int c = 0; c < channels; c++) {
            const float *row = x + c * plane + start;
            for (int i = 0; i < n; i++) maximum[i] = row[i] > maximum[i] ? row[i] : maximum[i];
        }
        for (int c = 0; c < channels; c++) {
            const float *row = x + c * plane + start;
            float *out = y + c * plane + start;
            for (int i = 0; i < n; i++) {
                float e = expf(row[i] - maximum[i]);
                out[i] = e;
                sum[i] += e;
            }
        }
        for (int i = 0; i < n; i++) sum[i] = 1.0f / sum[i];
        for (int c = 0; c < channels; c++) {
            float *out = y + c * plane + start;
            for (int i = 0; i < n; i++) out[i] *= sum[i];
        }
    }
}
