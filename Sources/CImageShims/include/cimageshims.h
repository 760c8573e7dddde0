#ifndef CIMAGESHIMS_H
#define CIMAGESHIMS_H

// C shims around the image libraries: libpng and libjpeg-turbo (which report errors by
// longjmp-ing out of a callback, which Swift cannot set up), libheif (HEIC, and AVIF through
// the AV1 decoders it is built with) and libwebp. These functions own every setjmp, turn every
// library error into a status plus a one-line message, and never print to stderr. This header
// deliberately exposes no library types so Swift only sees plain integers and pointers.

#include <stddef.h>
#include <stdint.h>

#define GPS_OK 0
#define GPS_ERR_CORRUPT 1    // the library rejected the data (message says why)
// (2 is unused: the pixel limit is checked by the caller, between header and pixels)
#define GPS_ERR_EMPTY 3      // zero width or height
#define GPS_ERR_NO_MEMORY 4
#define GPS_ERR_NO_DATA 5    // the input holds no bytes at all
#define GPS_ERR_NOT_IMAGE 6  // the first bytes are no PNG, JPEG, HEIF (HEIC/AVIF) or WebP signature
#define GPS_ERR_READ 7       // read(2) failed; gps_decode_error.read_errno says why
#define GPS_ERR_WRITE 8      // write(2) failed; gps_png_writer_errno says why
#define GPS_ERR_UNSUPPORTED 9  // a valid file using a feature not decoded here (message says which)
#define GPS_ERR_TOO_LARGE 10   // HEIC/WebP: the file (read whole) is above GPS_WHOLE_INPUT_LIMIT (1 GiB)

// ---- Decoding: header first, then pixels straight into planar floats ----
//
// The header is read (PNG IHDR, JPEG SOF, HEIF boxes, WebP chunks) without allocating
// anything image-sized, so the caller can refuse an absurd size and allocate the float planes
// itself (reporting failure) before any pixel is decoded. PNG and JPEG are streamed and decoded
// a row at a time into those planes. HEIC and WebP are read whole first (the compressed file
// is the only copy held during the header phase): libheif parses boxes by offset, and a WebP's
// EXIF chunk follows its pixels.
//
// Formats are told by their first bytes, never by the file name: PNG and JPEG signatures,
// "RIFF" size "WEBP", and an ISO-BMFF "ftyp" box whose major or a compatible brand is a HEIF
// image brand libheif 1.15 can decode (HEVC: heic heix heim heis hevc hevx hevm hevs; generic:
// mif1 msf1; AV1: avif avis).

// The most a HEIC or WebP file may hold, as it is read whole: as much as standard input may
// hold (DecodeLimits.defaultMaxStandardInputBytes). A 100 MP lossless WebP is far smaller; a
// file this large behind a HEIC or WebP signature is refused instead of filling memory.
#define GPS_WHOLE_INPUT_LIMIT 1073741824

#define GPS_FORMAT_PNG 1
#define GPS_FORMAT_JPEG 2
#define GPS_FORMAT_HEIC 3   // HEIF with HEVC (or any non-AV1 codec) images
#define GPS_FORMAT_WEBP 4   // lossy, lossless, with alpha; animated: the first frame
#define GPS_FORMAT_AVIF 5   // HEIF with AV1 images: same decoder as HEIC (libheif + dav1d/aom)

typedef struct gps_reader gps_reader;

// What became of an embedded colour profile (gps_image_header.color_status).
#define GPS_COLOR_NONE 0       // no profile: the samples are taken as sRGB
#define GPS_COLOR_SRGB 1       // a profile that is sRGB already (checked numerically): unchanged
#define GPS_COLOR_CONVERTED 2  // converted from the profile to sRGB
#define GPS_COLOR_IGNORED 3    // unreadable or not matching the samples: unchanged, with a warning

// An nclx colour description (ITU-T H.273 code points), as HEIF's 'colr' box may carry instead
// of, or next to, an ICC profile. Common values: primaries 1 = BT.709/sRGB, 12 = Display P3,
// 9 = BT.2020; transfer 13 = sRGB, 1/6 = BT.709, 16 = PQ, 18 = HLG; 2 means unspecified.
// libheif already used matrix_coefficients and full_range to turn YCbCr into RGB; primaries and
// transfer describe the RGB values the decoder hands over.
typedef struct gps_cicp {
    int present;         // 0: the file has no nclx description
    uint16_t colour_primaries;
    uint16_t transfer_characteristics;
    uint16_t matrix_coefficients;
    int full_range;
} gps_cicp;

typedef struct gps_image_header {
    int format;          // GPS_FORMAT_*
    uint32_t width;      // as stored (before any EXIF orientation); HEIF: after irot/imir,
    uint32_t height;     //   which the decoder applies (HEIF's EXIF orientation is ignored)
    uint32_t coded_width;   // HEIF: the picture decoded before 'clap' crops it (its 'ispe'),
    uint32_t coded_height;  //   which the caller's pixel limit must also allow; 0: width x height
    int has_alpha;       // PNG with an alpha channel or tRNS; HEIF alpha plane; WebP alpha
    const uint8_t *exif; // TIFF data of the EXIF block (JPEG APP1 after "Exif\0\0", PNG eXIf,
    size_t exif_size;    //   WebP EXIF chunk), or NULL; valid until gps_reader_destroy
    const uint8_t *icc;  // the embedded ICC profile's bytes (PNG iCCP, JPEG APP2, HEIF 'colr'
    size_t icc_size;     //   prof/rICC, WebP ICCP), or NULL; valid until gps_reader_destroy
    gps_cicp cicp;       // HEIF nclx; present == 0 for other formats
    uint32_t bit_depth;  // samples per channel in the file: 8, or 10/12 for HDR HEIF (decoded to 16)
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

// The format the first `count` bytes announce (GPS_FORMAT_*), or 0: the reader's own rule,
// also used by the Swift side to check standard input before reading it whole.
int gps_sniff_format(const uint8_t *bytes, size_t count);

// Sniffs the signature and reads the header. Only the first bytes are read when the input is
// not an image (so /dev/zero fails at once).
int gps_reader_read_header(gps_reader *reader, gps_image_header *header, gps_decode_error *error);

// Decodes the pixels into `rgb` (red, green, blue planes of width*height floats each, values
// v/255 or v/65535) and `alpha` (width*height floats; NULL when !has_alpha), in sRGB: an
// embedded ICC profile is converted (color.h). PNG: palette, tRNS and 1/2/4-bit gray are
// expanded, 16-bit samples kept, gAMA/cHRM ignored (as Pillow does). JPEG: gray is copied to
// all planes, CMYK converted to RGB; EXIF orientation is NOT applied. Every libjpeg
// corrupt-data warning is an error here, and so is every PNG error that touches the pixels (a
// truncated file, a CRC error in a critical chunk, too little image data); libpng's benign
// errors (bad ancillary chunk contents, an iCCP it dislikes, extra data after the image) and
// CRC errors in ancillary chunks are warnings (gps_reader_warning). HEIF: the primary image,
// irot/imir applied, 10/12-bit samples scaled to 16 bits (v * 65535 / max), premultiplied
// alpha undone; libheif's strict decoding, so damage is an error. WebP: libwebp decodes into
// the rgb planes' own memory, converted in place (no 8-bit copy of the image).
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
