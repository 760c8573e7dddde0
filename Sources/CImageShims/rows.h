// Decoded rows to the planar floats of GPUStyle's Image, one row at a time, so that no 8-bit
// copy of the whole image is kept next to the float planes (the float planes are 12 bytes per
// pixel, 16 with alpha; a whole 8-bit copy would add 3-8 more).
#ifndef GPS_ROWS_H
#define GPS_ROWS_H

#include <stdint.h>

// Where one row goes: red, green and blue planes and the alpha plane (NULL when the image has
// none), each pointing at the row's first pixel.
typedef struct gps_row_target {
    float *red, *green, *blue, *alpha;
} gps_row_target;

// Sample value -> float: v / 255 for every 8-bit value, precomputed. Division (not a multiply
// by 1/255) gives the correctly rounded float, so 8-bit samples survive an encode/decode round
// trip bit-exactly; the table is only a faster way to get the same values.
typedef struct gps_sample_table {
    float value[256];
} gps_sample_table;

void gps_sample_table_init(gps_sample_table *table);

// Converts `width` interleaved pixels of `channels` samples (1 gray, 2 gray+alpha, 3 RGB,
// 4 RGBA), 8-bit or 16-bit big-endian (as PNG stores them), into the planes. Gray is copied to
// all three colour planes; with no alpha plane an alpha channel is ignored.
void gps_row_to_planes(const uint8_t *row, uint32_t width, uint32_t channels, uint32_t bit_depth,
                       const gps_sample_table *table, gps_row_target target);

#endif
