// Winograd F(4x4, 3x3) for the style network's 3x3 stride-1 convolutions (gs_winograd.h); the
// transforms and the matrix products are in winograd_body.inc, compiled per instruction set.
#include "gs_winograd.h"
#include "gs_isa.h"
#include "simd.h"
#include "bf16.h"
#include <stdlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
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
    // V [36][cin][GROUP], M [36][12][GROUP], rows and their transforms 2 x 6 x 80, and for bf16
    // V in channel pairs [36][ceil(cin / 2)][GROUP].
    return (int64_t)36 * cin * GS_WINOGRAD_GROUP + 36 * 12 * GS_WINOGRAD_GROUP + 2 * 6 * 80
        + (int64_t)36 * ((cin + 1) / 2) * GS_WINOGRAD_GROUP + 16;
}

#define ISA_TWINS_BODY "winograd_body.inc"
#define ISA_TWINS_AVX512
#define ISA_TWINS_AVX512BF16
#include "isa_twins.h"

int64_t gs_winograd_packed_count_bf16(int cout, int cin) {
    return (int64_t)(cout + GS_WINOGRAD_CO_BLOCK - 1) / GS_WINOGRAD_CO_BLOCK * 36 * ((cin + 1) / 2) * GS_WINOGRAD_CO_BLOCK;
}

int gs_winograd_pack_bf16(const float *weights, int cout, int cin, uint32_t *packed) {
    float *u = malloc(sizeof(float) * (size_t)gs_winograd_packed_count(cout, cin));
    if (!u) return -1;
    gs_winograd_pack(weights, cout, cin, u);
    const int blocks = (cout + GS_WINOGRAD_CO_BLOCK - 1) / GS_WINOGRAD_CO_BLOCK, pairs = (cin + 1) / 2;
    for (int b = 0; b < blocks; b++)
        for (int xi = 0; xi < 36; xi++)
            for (int p = 0; p < pairs; p++)
                for (int c = 0; c < GS_WINOGRAD_CO_BLOCK; c++) {
                    const float *row = u + (((int64_t)b * 36 + xi) * cin + 2 * p) * GS_WINOGRAD_CO_BLOCK + c;
                    const float hi = 2 * p + 1 < cin ? row[GS_WINOGRAD_CO_BLOCK] : 0.0f;
                    packed[(((int64_t)b * 36 + xi) * pairs + p) * GS_WINOGRAD_CO_BLOCK + c] = gs_bf16_pair(row[0], hi);
                }
    free(u);
    return 0;
}

void gs_winograd_run_bf16(const float *input, int64_t in_plane_stride, int64_t in_row_stride, int padded_height,
                          int padded_width, int cin, const uint32_t *packed, int cout, float *output,
                          int64_t out_plane_stride, int64_t task_begin, int64_t task_end, float *scratch) {
#if defined(__x86_64__)
    if (gs_has_avx512_bf16()) {
        winograd_bf16_avx512bf16(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout,
                                 output, out_plane_stride, task_begin, task_end, scratch);
        return;
    }
#endif
    switch (gs_isa_level()) {
#if defined(__x86_64__)
    case 2:
        winograd_bf16_avx512(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout, output,
                             out_plane_stride, task_begin, task_end, scratch);
        return;
    case 1:
        winograd_bf16_avx2(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout, output,
                           out_plane_stride, task_begin, task_end, scratch);
        return;
#endif
    default:
        winograd_bf16_portable(input, in_plane_stride, in_row_stride, padded_height, padded_width, cin, packed, cout,
                               output, out_plane_stride, task_begin, task_end, scratch);
    }
}

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
