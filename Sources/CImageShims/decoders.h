// The two format decoders behind gps_reader (reader.c). Each has a header phase and a pixel
// phase; each phase sets up its own setjmp, and all state that must survive a longjmp lives in
// the decoder's heap struct (C11 7.13.2.1p3: no automatic variable of the setjmp-ing function
// is modified between setjmp and longjmp).
#ifndef GPS_DECODERS_H
#define GPS_DECODERS_H

#include "cimageshims.h"
#include "rows.h"
#include "stream.h"
#include "util.h"

struct gps_png_decoder;
struct gps_jpeg_decoder;

struct gps_png_decoder *gps_png_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_png_read_header(struct gps_png_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_png_read_pixels(struct gps_png_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_png_destroy(struct gps_png_decoder *decoder);

struct gps_jpeg_decoder *gps_jpeg_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_jpeg_read_header(struct gps_jpeg_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_jpeg_read_pixels(struct gps_jpeg_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_jpeg_destroy(struct gps_jpeg_decoder *decoder);

// The destination of row `y` in planes of width*height floats.
static inline gps_row_target gps_row_in_planes(float *rgb, float *alpha, size_t width, size_t height, size_t y) {
    size_t plane = width * height, offset = width * y;
    gps_row_target target = {rgb + offset, rgb + plane + offset, rgb + 2 * plane + offset,
                             alpha ? alpha + offset : NULL};
    return target;
}

#endif
