// Bilinear perspective warp of planar float images, compiled for AVX2+FMA and for the baseline
// instruction set like the convolution kernel (the body only uses clang vector extensions, so
// the portable copy also builds on other architectures).
//
// Numerics are PerspectiveWarper's definition (Swift) with one difference in rounding only: a
// pixel clamped onto the last column (row) takes the pair (last - 1, last) with weight exactly 1
// instead of (last, last) with weight 0, so that every pixel's four taps exist in memory; the
// result is the edge pixel to within one float rounding.
#include "ckernels.h"
#include "simd.h"

// What every row of one warp shares; built once by gs_warp_bilinear_rows.
typedef struct {
    const float *src;
    int64_t src_plane;
    int src_width, src_height, planes;
    const double *m;
    int origin_x, origin_y;
    float *dst;
    int64_t dst_plane;
    int width;
} warp_job;

#define WARP_RUN 32     // output pixels sharing one local source origin (see warp_body.inc)
#define WARP_CHUNK 256  // output pixels whose taps are located before any is read; a multiple of WARP_RUN

// Where a chunk's pixels sample: the top-left tap of each (x0 + y0 * src_width, with
// x0 <= src_width - 2 and y0 <= src_height - 2 so that the other three taps exist) and the
// weights of the right and lower taps.
typedef struct {
    int32_t offset[WARP_CHUNK];
    float fx[WARP_CHUNK], fy[WARP_CHUNK];
} warp_taps;

// (sx, sy) clamped into the image, NaN to 0, as in PerspectiveWarper's definition.
static void clamp_double(const warp_job *j, double *sx, double *sy) {
    const int last_x = j->src_width - 1, last_y = j->src_height - 1;
    *sx = *sx >= 0 ? (*sx < last_x ? *sx : last_x) : 0;
    *sy = *sy >= 0 ? (*sy < last_y ? *sy : last_y) : 0;
}

// The source point of output pixel (x, y) in double.
static void source_point(const warp_job *j, int y, int x, double *sx, double *sy) {
    const double *m = j->m;
    const double ox = (double)j->origin_x + x, oy = (double)j->origin_y + y;
    const double w = m[6] * ox + m[7] * oy + m[8];
    *sx = (m[0] * ox + m[1] * oy + m[2]) / w;
    *sy = (m[3] * ox + m[4] * oy + m[5]) / w;
}

// Taps of pixels [start, start + n) of row y located per pixel in double, for runs whose local
// float parameters are not finite (e.g. near the horizon). Lanes up to the next multiple of 8
// get a harmless tap.
static void locate_double(const warp_job *j, int y, int start, int n, warp_taps *taps, int at) {
    int i = 0;
    for (; i < n; i++) {
        double sx, sy;
        source_point(j, y, start + i, &sx, &sy);
        clamp_double(j, &sx, &sy);
        int x0 = (int)sx, y0 = (int)sy;
        if (x0 > j->src_width - 2) x0 = j->src_width - 2;
        if (y0 > j->src_height - 2) y0 = j->src_height - 2;
        taps->offset[at + i] = y0 * j->src_width + x0;
        taps->fx[at + i] = (float)(sx - x0);
        taps->fy[at + i] = (float)(sy - y0);
    }
    for (; i % 8; i++) {
        taps->offset[at + i] = 0;
        taps->fx[at + i] = taps->fy[at + i] = 0;
    }
}

// Sources one pixel wide or high have no 2x2 footprint: per pixel, the missing taps read the
// edge itself.
static void warp_rows_thin(const warp_job *j, int row_begin, int row_end) {
    const int last_x = j->src_width - 1, last_y = j->src_height - 1;
    for (int y = row_begin; y < row_end; y++) {
        float *row = j->dst + (int64_t)y * j->width;
        for (int x = 0; x < j->width; x++) {
            double sx, sy;
            source_point(j, y, x, &sx, &sy);
            clamp_double(j, &sx, &sy);
            const int x0 = (int)sx, y0 = (int)sy;
            const float fx = (float)(sx - x0), fy = (float)(sy - y0);
            const int dx = x0 < last_x ? 1 : 0, dy = y0 < last_y ? j->src_width : 0;
            const float *p = j->src + (int64_t)y0 * j->src_width + x0;
            for (int c = 0; c < j->planes; c++, p += j->src_plane) {
                const float top = p[0] + fx * (p[dx] - p[0]);
                const float bottom = p[dy] + fx * (p[dy + dx] - p[dy]);
                row[c * j->dst_plane + x] = top + fy * (bottom - top);
            }
        }
    }
}

#define ISA_TWINS_BODY "warp_body.inc"
#include "isa_twins.h"

void gs_warp_bilinear_rows(const float *src, int src_width, int src_height, int planes,
                           const double *m, int origin_x, int origin_y,
                           float *dst, int width, int height, int row_begin, int row_end) {
    const warp_job job = {
        .src = src, .src_plane = (int64_t)src_width * src_height,
        .src_width = src_width, .src_height = src_height, .planes = planes,
        .m = m, .origin_x = origin_x, .origin_y = origin_y,
        .dst = dst, .dst_plane = (int64_t)width * height, .width = width,
    };
    if (src_width < 2 || src_height < 2) { warp_rows_thin(&job, row_begin, row_end); return; }
#if defined(__x86_64__)
    if (gs_has_avx2_fma()) { warp_rows_avx2(&job, row_begin, row_end); return; }
#endif
    warp_rows_portable(&job, row_begin, row_end);
}
