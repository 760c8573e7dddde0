// Colour management: an image's embedded ICC profile (PNG iCCP, JPEG APP2, HEIC colr, WebP
// ICCP) turned into a LittleCMS transform to sRGB, applied to each decoded row before it becomes
// floats. Everything downstream (the networks, the detectors, the warps, every PNG written)
// works in sRGB, so a Display P3 phone photo must arrive as the sRGB colours a colour-managed
// viewer shows, not as its raw P3 numbers (up to 63 levels apart).
//
// Rows are interleaved 8-bit or 16-bit big-endian samples, as the decoders produce them; the
// transform keeps the depth (16-bit rows stay 16-bit) and copies alpha unchanged. Intent:
// relative colorimetric, no black point compensation, as Pillow's
// ImageCms.profileToProfile(..., renderingIntent=RELATIVE_COLORIMETRIC).
#ifndef GPS_COLOR_H
#define GPS_COLOR_H

#include <stddef.h>
#include <stdint.h>

#include "cimageshims.h"
#include "util.h"

// What the decoder's rows hold.
typedef enum gps_row_kind {
    GPS_ROWS_GRAY,            // 1 sample (+ alpha)
    GPS_ROWS_RGB,             // 3 samples (+ alpha)
    GPS_ROWS_CMYK,            // 4 samples, 0 = no ink
    GPS_ROWS_CMYK_INVERTED,   // 4 samples, 255 = no ink (Adobe's JPEGs)
} gps_row_kind;

typedef struct gps_color gps_color;

// Reads `header->icc` (when not NULL) and decides: a profile that is sRGB already (checked by
// transforming a grid of colours, not by its name), absent, unreadable, or of a colour space
// that does not match the rows gives NULL and rows pass through unchanged; otherwise a
// transform. Sets header->color_status (GPS_COLOR_*) and header->profile_name, and adds a
// warning for a profile that is ignored. `alpha`: the rows carry an alpha sample after the
// colour samples. Never fails hard: colour is metadata, the pixels are intact without it.
gps_color *gps_color_create(gps_image_header *header, gps_row_kind kind, int alpha, uint32_t bit_depth,
                            gps_warnings *warnings);

// The samples per pixel of the rows gps_color_apply returns (3 or 4 for a transform; the
// input's count when color is NULL).
uint32_t gps_color_channels(const gps_color *color, uint32_t input_channels);

// Converts one row of `width` pixels; returns the converted row (a buffer owned by `color`,
// valid until the next call) or `row` itself when color is NULL. NULL when the row buffer
// cannot be allocated.
const uint8_t *gps_color_apply(gps_color *color, const uint8_t *row, uint32_t width);

// Converts `count` pixels in place (no row buffer); only for 8-bit RGB or RGBA rows, whose
// samples per pixel are the same in and out. Nothing happens when color is NULL.
void gps_color_apply_in_place(gps_color *color, uint8_t *pixels, size_t count);

void gps_color_destroy(gps_color *color);

#endif
