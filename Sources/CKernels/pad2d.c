// Zero or reflection padding (numpy 'reflect': the edge is not repeated) of one channel plane.
#include "ckernels.h"
#include <string.h>

static inline int reflect_index(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    return i;
}

void gs_pad2d_rows(const float *x, int in_height, int in_width, float *y, int out_width,
                   int top, int left, int reflect, int row_begin, int row_end) {
    for (int oy = row_begin; oy < row_end; oy++) {
        float *out = y + (int64_t)oy * out_width;
        int sy = oy - top;
        if (!reflect && (sy < 0 || sy >= in_height)) {
            memset(out, 0, sizeof(float) * (size_t)out_width);
            continue;
        }
        const float *row = x + (int64_t)reflect_index(sy, in_height) * in_width;
        const int right = out_width - left - in_width;
        for (int i = 0; i < left; i++) out[i] = reflect ? row[reflect_index(i - left, in_width)] : 0.0f;
        memcpy(out + left, row, sizeof(float) * (size_t)in_width);
        for (int i = 0; i < right; i++) {
            out[left + in_width + i] = reflect ? row[reflect_index(in_width + i, in_width)] : 0.0f;
        }
    }
}
