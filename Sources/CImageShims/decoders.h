// The format decoders behind gps_reader (reader.c). Each has a header phase and a pixel phase.
// PNG and JPEG: each phase sets up its own setjmp, and all state that must survive a longjmp
// lives in the decoder's heap struct (C11 7.13.2.1p3: no automatic variable of the setjmp-ing
// function is modified between setjmp and longjmp). libheif and libwebp return errors instead.
#ifndef GPS_DECODERS_H
#define GPS_DECODERS_H

#include "cimageshims.h"
#include "rows.h"
#include "stream.h"
#include "util.h"

struct gps_png_decoder;
struct gps_jpeg_decoder;
struct gps_heic_decoder;
struct gps_webp_decoder;

struct gps_png_decoder *gps_png_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_png_read_header(struct gps_png_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_png_read_pixels(struct gps_png_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_png_destroy(struct gps_png_decoder *decoder);

struct gps_jpeg_decoder *gps_jpeg_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_jpeg_read_header(struct gps_jpeg_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_jpeg_read_pixels(struct gps_jpeg_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_jpeg_destroy(struct gps_jpeg_decoder *decoder);

// HEIF (HEIC and AVIF): libheif over the whole file (heic_decode.c).
struct gps_heic_decoder *gps_heic_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_heic_read_header(struct gps_heic_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_heic_read_pixels(struct gps_heic_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_heic_destroy(struct gps_heic_decoder *decoder);

// WebP: libwebp and its demuxer over the whole file (webp_decode.c).
struct gps_webp_decoder *gps_webp_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings);
int gps_webp_read_header(struct gps_webp_decoder *decoder, gps_image_header *header, gps_decode_error *error);
int gps_webp_read_pixels(struct gps_webp_decoder *decoder, float *rgb, float *alpha, gps_decode_error *error);
void gps_webp_destroy(struct gps_webp_decoder *decoder);

// gps_stream_read_all as a GPS_* status (GPS_ERR_NO_DATA for nothing left).
static inline int gps_read_whole_input(gps_stream *stream, const uint8_t **data, size_t *size, uint8_t **owned) {
    switch (gps_stream_read_all(stream, data, size, owned)) {
    case 0: return *size == 0 ? GPS_ERR_NO_DATA : GPS_OK;
    case -1: return GPS_ERR_READ;
    case -2: return GPS_ERR_NO_MEMORY;
    default: return GPS_ERR_TOO_LARGE;
    }
}

// The destination of row `y` in planes of width*height floats.
static inline gps_row_target gps_row_in_planes(float *rgb, float *alpha, size_t width, size_t height, size_t y) {
    size_t plane = width * height, offset = width * y;
    gps_row_target target = {rgb + offset, rgb + plane + offset, rgb + 2 * plane + offset,
                             alpha ? alpha + offset : NULL};
    return target;
}

#endif
