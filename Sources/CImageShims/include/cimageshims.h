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
// (2 is unused: the pixel limit is checked by the caller, between header and pixels)
#define GPS_ERR_EMPTY 3      // zero width or height
#define GPS_ERR_NO_MEMORY 4
#define GPS_ERR_NO_DATA 5    // the input holds no bytes at all
#define GPS_ERR_NOT_IMAGE 6  // the first bytes are neither a PNG nor a JPEG signature
#define GPS_ERR_READ 7       // read(2) failed; gps_decode_error.read_errno says why
#define GPS_ERR_WRITE 8      // write(2) failed; gps_png_writer_errno says why

// ---- Decoding: header first, then pixels straight into planar floats ----
//
// The header is read (PNG IHDR, JPEG SOF) without allocating anything image-sized, so the
// caller can refuse an absurd size and allocate the float planes itself (reporting failure)
// before any pixel is decoded. Pixels are decoded a row at a time into those planes.

#define GPS_FORMAT_PNG 1
#define GPS_FORMAT_JPEG 2

typedef struct gps_reader gps_reader;

// What became of an embedded colour profile (gps_image_header.color_status).
#define GPS_COLOR_NONE 0       // no profile: the samples are taken as sRGB
#define GPS_COLOR_SRGB 1       // a profile that is sRGB already (checked numerically): unchanged
#define GPS_COLOR_CONVERTED 2  // converted from the profile to sRGB
#define GPS_COLOR_IGNORED 3    // unreadable or not matching the samples: unchanged, with a warning

typedef struct gps_image_header {
    int format;          // GPS_FORMAT_*
    uint32_t width;      // as stored (before any EXIF orientation)
    uint32_t height;
    int has_alpha;       // PNG with an alpha channel or tRNS
    const uint8_t *exif; // TIFF data of the EXIF block (JPEG APP1 after "Exif\0\0", PNG eXIf),
    size_t exif_size;    //   or NULL; valid until gps_reader_destroy
    const uint8_t *icc;  // the embedded ICC profile's bytes, or NULL; valid until gps_reader_destroy
    size_t icc_size;
    int color_status;    // GPS_COLOR_*
    char profile_name[64];  // the profile's description, when there is one
} gps_image_header;

typedef struct gps_decode_error {
    char message[200];   // the library's text for GPS_ERR_CORRUPT
    int read_errno;      // for GPS_ERR_READ
} gps_decode_error;

// A reader over file descriptor `fd` (bytes == NULL; the caller keeps and closes fd) or over
// `size` bytes at `bytes` (kept by the caller until destroy). NULL when out of memory.
gps_reader *gps_reader_create(int fd, const void *bytes, size_t size);

// Sniffs the signature and reads the header. Only the first bytes are read when the input is
// not an image (so /dev/zero fails at once).
int gps_reader_read_header(gps_reader *reader, gps_image_header *header, gps_decode_error *error);

// Decodes the pixels into `rgb` (red, green, blue planes of width*height floats each, values
// v/255 or v/65535) and `alpha` (width*height floats; NULL when !has_alpha), in sRGB: an
// embedded ICC profile is converted (color.h). PNG: palette, tRNS and 1/2/4-bit gray are
// expanded, 16-bit samples kept, gAMA/cHRM ignored (as Pillow and most viewers do). JPEG: gray
// is copied to all planes, CMYK converted to RGB; EXIF orientation is NOT applied. Every libjpeg
// corrupt-data warning is an error here, and so is every PNG error that touches the pixels (a
// truncated file, a CRC error in a critical chunk, too little image data); libpng's benign
// errors (bad ancillary chunk contents, an iCCP it dislikes, extra data after the image) and
// CRC errors in ancillary chunks are warnings (gps_reader_warning).
int gps_reader_read_pixels(gps_reader *reader, float *rgb, float *alpha, gps_decode_error *error);

// The first problem decoding went past (a broken ancillary chunk, an ignored profile), with
// the number of such problems; "" and 0 when there were none. Valid until destroy.
const char *gps_reader_warning(const gps_reader *reader, int *count);

void gps_reader_destroy(gps_reader *reader);

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

// 1 when malloc can provide `bytes` right now (the block is freed at once), else 0.
int gps_can_allocate(size_t bytes);

#endif
