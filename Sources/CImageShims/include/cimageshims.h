#ifndef CIMAGESHIMS_H
#define CIMAGESHIMS_H

// C shims around libpng and libjpeg-turbo. Both libraries report errors by
// longjmp-ing out of a callback, which Swift cannot set up; these functions
// own the setjmp, turn every library error into a status plus a one-line
// message, and never print to stderr. This header deliberately exposes no
// libpng/libjpeg types so Swift only sees plain integers and pointers.

#include <stddef.h>
#include <stdint.h>

#define GPS_OK 0
#define GPS_ERR_CORRUPT 1    // the library rejected the data (message says why)
#define GPS_ERR_TOO_LARGE 2  // width*height exceeds max_pixels; width/height are set
#define GPS_ERR_EMPTY 3      // zero width or height
#define GPS_ERR_NO_MEMORY 4
#define GPS_ERR_WRITE 5      // write(2) failed; gps_png_writer_errno says why

// Decoded pixels, interleaved, rows top to bottom without padding.
typedef struct gps_pixels {
    uint32_t width;
    uint32_t height;
    uint32_t channels;   // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
    uint32_t bit_depth;  // 8, or 16 as native-endian uint16
    void *data;          // malloc'd; release with gps_free
} gps_pixels;

// Decodes a whole PNG held in memory. Palette, tRNS and 1/2/4-bit gray are
// expanded; 16-bit samples are kept; gamma/ICC chunks are ignored.
int gps_png_decode(const void *bytes, size_t size, uint64_t max_pixels,
                   gps_pixels *out, char *message, size_t message_size);

// Decodes a baseline or progressive JPEG to RGB (or gray for one-component
// files; CMYK is converted to RGB). EXIF orientation is NOT applied here.
int gps_jpeg_decode(const void *bytes, size_t size, uint64_t max_pixels,
                    gps_pixels *out, char *message, size_t message_size);

// Encodes 8-bit interleaved RGB (channels 3) or RGBA (channels 4) as PNG.
// On success *png / *png_size hold a malloc'd buffer; release with gps_free.
int gps_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height,
                   uint32_t channels, void **png, size_t *png_size,
                   char *message, size_t message_size);

// A PNG written to a file descriptor row by row (png_write.c): open, one row at a time
// (top to bottom, width * channels bytes of 8-bit RGB or RGBA), finish, then always free
// (also after a failed open). A failure's text is gps_png_writer_message; for
// GPS_ERR_WRITE the errno is gps_png_writer_errno. The descriptor is not closed.
typedef struct gps_png_writer gps_png_writer;
int gps_png_writer_open(gps_png_writer **writer, int fd, uint32_t width, uint32_t height, uint32_t channels);
int gps_png_writer_row(gps_png_writer *writer, const uint8_t *row);
int gps_png_writer_finish(gps_png_writer *writer);
const char *gps_png_writer_message(const gps_png_writer *writer);
int gps_png_writer_errno(const gps_png_writer *writer);
void gps_png_writer_free(gps_png_writer *writer);

void gps_free(void *pointer);

#endif
