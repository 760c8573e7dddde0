// Winograd F(4x4, 3x3) for the style network's 3x3 stride-1 convolutions (gs_winograd.h); the
// transforms and the matrix products are in winograd_body.inc, compiled per instruction set.
#include "gs_winograd.h"
#include "gs_isa.h"
#include "simd.h"
#include <string.h>

int64_t gs_winograd_packed_count(int cout, int cin) {
    return (int64_t)(cout + GS_WINOGRAD_CO_BLOCK - 1) / GS_WINOGRAD_CO_BLOCK * 36 * cin * GS_WINOGRAD_CO_BLOCK;
}

void gs_winograd_pack(const float *weights, int cout, int cin, float *packed) {
    // G (6x3) for the points 0, 1, -1, 2, -2 and infinity.
    static const double G[6][3] = {
        {1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
        {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1},
    };
    memset(packed, 0, sizeof(float) * (size_t)gs_winograd_packed_count(cout, cin));
    for (int co = 0; co < cout; co++)
        for (int ci = 0; ci < cin; ci++) {
            const float *g = weights + ((int64_t)co * cin + ci) * 9;
            double gt[6][3];  // G g
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 3; j++) gt[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++) {
                    const double u = gt[i][0] * G[j][0] + gt[i][1] * G[j][1] + gt[i][2] * G[j][2];
                    const int b = co / GS_WINOGRAD_CO_BLOCK;
                    packed[(((int64_t)b * 36 + i * 6 + j) * cin + ci) * GS_WINOGRAD_CO_BLOCK + co % GS_WINOGRAD_CO_BLOCK] =
                        (float)u;
                }
        }
}

static int tile_count(int side) { return (side - 2 + 3) / 4; }

int64_t gs_winograd_tasks(int padded_height, int padded_width) {
    const int tw = tile_count(padded_width);
    return (int64_t)tile_count(padded_height) * ((tw + GS_WINOGRAD_GROUP - 1) / GS_WINOGRAD_GROUP);
}

int64_t gs_winograd_scratch(int cin) {
    // V [36][cin][GROUP], M [36][12][GROUP], rows and their transforms 2 x 6 x 80.
    return (int64_t)36 * cin * GS_WINOGRAD_GROUP + 36 * 12 * GS_WINOGRAD_GROUP + 2 * 6 * 80 + 16;
}

#define ISA_TWINS_BODY "winograd_body.inc"
#define ISA_TWINS_AVX512
#include "isa_twins.h"

void gs_winograd_run(const float *input, int64_t in_plane_stride, int64_t in_row_stride, int padded_height,
                     int padded_width, int cin, const float *packed, int cout, float *output,
                     int64_t out_plane_stride, int64_t task_begin, int64_t task_end, float *scratch) {
    switch (gs_isa_level()) {
#if defined(__x86_64__)
    case 2:
        winograd_avx512(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout, output,
                        out_plane_stride, task_begin, task_end, scratch);
        return;
    case 1:
        winograd_avx2(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout, output,
                      out_plane_stride, task_begin, task_end, scratch);
        return;
#endif
    default:
        winograd_portable(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout, output,
                          out_plane_stride, task_begin, task_end, scratch);
    }
}
