// HEIF decoding (HEIC, and AVIF when libheif has an AV1 decoder) with libheif over the whole
// file in memory, then row by row from libheif's interleaved RGB(A) image into float planes.
//
// Header phase: libheif parses the boxes (ftyp, meta, iloc, iprp, ...) of the in-memory file;
// nothing image-sized is allocated, only the compressed file is held. The primary image's
// width and height are read after the irot/imir transformations, which heif_decode_image
// applies: that is the orientation HEIF defines, and an EXIF orientation inside a HEIF is only
// informational (ISO/IEC 23008-12 6.5.3), so no EXIF is handed to the caller.
//
// Pixel phase: libheif decodes the HEVC/AV1 data to YCbCr and converts it to interleaved
// RGB(A), 8-bit, or RRGGBB(AA) big-endian for 10/12-bit images. That RGB image is the one
// 8-bit (16-bit for HDR) copy of the image next to the float planes, for the length of the
// conversion to floats; it is freed before returning.
//
// Measured (tools/measure_decode.c, /usr/bin/time -v; 2 shared cores): an 8000x6000 (48 MP)
// HEIC from pillow-heif/x265 at quality 70 (19.4 MB, one HEVC image, not a grid) decodes in
// 6.1-7.6 s with a peak RSS of 712 MiB: the planes' 549 MiB plus 162 MiB (libheif's RGB
// image 137 MiB, the file 18.5 MiB). Without the malloc_trim below it was 822 MiB.

#include <libheif/heif.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "color.h"
#include "decoders.h"
#include "heif_boxes.h"
#include "quiet_stderr.h"
#include "util.h"

// libheif refuses images (the primary, and its alpha, grid tiles and other auxiliary images)
// wider or taller than this. Its own default, 32768 a side, is kept on purpose: at 65536 a
// 1.4 KB file whose overlay primary declares a 42926x59405 canvas made libheif 1.15 allocate
// 2.5 GB and crash in a memset past 2^31 bytes (tools/fuzz, heic target; gpustyle exited with
// SIGSEGV). heif_boxes.c now refuses that file before libheif decodes it; this limit stays as
// the bound on what the box check does not see.
// A HEIC panorama wider than 32768 is refused as unsupported; --max-pixels decides the rest.
#define HEIF_SIDE_LIMIT 32768

struct gps_heic_decoder {
    gps_stream *stream;
    const gps_sample_table *table;
    uint8_t *file;  // the whole input when read from a descriptor (else NULL: the caller's bytes)
    struct heif_context *context;
    struct heif_image_handle *handle;
    struct heif_image *image;
    uint8_t *icc;
    uint8_t *row;   // HDR only: one row rescaled to 16 bits
    gps_color *color;  // NULL: the samples are sRGB already
    gps_warnings *warnings;
    uint32_t width, height, bit_depth;
    int has_alpha, premultiplied;
};

struct gps_heic_decoder *gps_heic_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings) {
    struct gps_heic_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->stream = stream;
    d->table = table;
    d->warnings = warnings;
    return d;
}

// libheif's text (which may end in a newline) as one line, and the matching status.
static int failure(struct heif_error failed, gps_decode_error *error) {
    gps_set_message(error->message, sizeof error->message, failed.message ? failed.message : "");
    for (char *c = error->message; *c != 0; c++) {
        if ((unsigned char)*c < 0x20) *c = ' ';
    }
    size_t n = strlen(error->message);
    while (n > 0 && error->message[n - 1] == ' ') error->message[--n] = 0;
    // libheif files its own limits (HEIF_SIDE_LIMIT, its box and item counts) under memory
    // errors; such a file is not corrupt, just beyond what is decoded here.
    if (failed.subcode == heif_suberror_Security_limit_exceeded) return GPS_ERR_UNSUPPORTED;
    if (failed.code == heif_error_Memory_allocation_error) return GPS_ERR_NO_MEMORY;
    if (failed.code == heif_error_Unsupported_feature || failed.code == heif_error_Unsupported_filetype) {
        return GPS_ERR_UNSUPPORTED;
    }
    return GPS_ERR_CORRUPT;
}

// The raw ICC profile ('colr' box of type prof or rICC), copied: libheif only hands out copies.
static int read_icc(struct gps_heic_decoder *d, gps_image_header *header, gps_decode_error *error) {
    enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(d->handle);
    if (type != heif_color_profile_type_prof && type != heif_color_profile_type_rICC) return GPS_OK;
    size_t size = heif_image_handle_get_raw_color_profile_size(d->handle);
    if (size == 0) return GPS_OK;
    d->icc = malloc(size);
    if (d->icc == NULL) return GPS_ERR_NO_MEMORY;
    struct heif_error failed = heif_image_handle_get_raw_color_profile(d->handle, d->icc);
    if (failed.code != heif_error_Ok) return failure(failed, error);
    header->icc = d->icc;
    header->icc_size = size;
    return GPS_OK;
}

// The nclx description, when the file has one next to (or instead of) an ICC profile. libheif
// 1.15 only reports an nclx 'colr' box, not colour values inside the HEVC bitstream's VUI.
static void read_nclx(struct gps_heic_decoder *d, gps_image_header *header) {
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error failed = heif_image_handle_get_nclx_color_profile(d->handle, &nclx);
    if (failed.code == heif_error_Ok && nclx != NULL) {
        header->cicp = (gps_cicp){1, (uint16_t)nclx->color_primaries, (uint16_t)nclx->transfer_characteristics,
                                  (uint16_t)nclx->matrix_coefficients, nclx->full_range_flag != 0};
    }
    // libheif 1.15 may hand over a profile and report an error (code points it does not know):
    // freed either way, or it leaks (tools/fuzz, heic target; FuzzRegressionTests).
    heif_nclx_color_profile_free(nclx);
}

// The coded picture (the 'ispe' box) is what libheif decodes before 'clap' crops it and 'irot'
// turns it: pillow-heif's 64x48 fixtures are coded 64x64. It is reported to the caller, whose
// pixel limit then covers what is decoded, not only what is shown: a file may declare a large
// ispe and crop it to a few pixels.
//
// A grid or overlay is drawn on a canvas whose size its own item data declare, which ISO/IEC
// 23008-12 requires to equal its ispe but libheif 1.15 never compares: a 901-byte overlay with
// a 64x64 ispe and a 26990x26112 canvas made it fill 4.1 GB before cropping (tools/fuzz, heic
// target; fixtures/fuzz/heic-oom-overlay-canvas-beyond-ispe.heic). heif_boxes.c compares the
// primary's; the side limit, lowered to the longest side of the primary's ispe once the header
// is read, bounds every other canvas (an alpha image's) before libheif allocates it.
static void limit_to_coded_size(struct gps_heic_decoder *d, gps_image_header *header, int coded_width,
                                int coded_height) {
    uint32_t side = header->width > header->height ? header->width : header->height;
    if (coded_width > 0 && coded_height > 0) {
        header->coded_width = (uint32_t)coded_width;
        header->coded_height = (uint32_t)coded_height;
        if ((uint32_t)coded_width > side) side = (uint32_t)coded_width;
        if ((uint32_t)coded_height > side) side = (uint32_t)coded_height;
    }
    // One above the longest side: libheif refuses a canvas side equal to the limit (measured
    // on the 128x128 grid fixture: refused at 128, decoded at 129), a coded image's not.
    if (side < HEIF_SIDE_LIMIT) heif_context_set_maximum_image_size_limit(d->context, (int)side + 1);
}

int gps_heic_read_header(struct gps_heic_decoder *d, gps_image_header *header, gps_decode_error *error) {
    const uint8_t *data = NULL;
    size_t size = 0;
    int status = gps_read_whole_input(d->stream, &data, &size, &d->file);
    if (status != GPS_OK) return status;

    d->context = heif_context_alloc();
    if (d->context == NULL) return GPS_ERR_NO_MEMORY;
    heif_context_set_maximum_image_size_limit(d->context, HEIF_SIDE_LIMIT);
    // No copy: the block lives until gps_heic_destroy, after the context.
    gps_quiet_stderr_begin();
    struct heif_error failed = heif_context_read_from_memory_without_copy(d->context, data, size, NULL);
    gps_quiet_stderr_end();
    if (failed.code != heif_error_Ok) return failure(failed, error);
    failed = heif_context_get_primary_image_handle(d->context, &d->handle);
    if (failed.code != heif_error_Ok) return failure(failed, error);

    int width = heif_image_handle_get_width(d->handle), height = heif_image_handle_get_height(d->handle);
    header->width = width > 0 ? (uint32_t)width : 0;
    header->height = height > 0 ? (uint32_t)height : 0;
    if (header->width == 0 || header->height == 0) return GPS_ERR_EMPTY;
    int ispe_width = heif_image_handle_get_ispe_width(d->handle);
    int ispe_height = heif_image_handle_get_ispe_height(d->handle);
    limit_to_coded_size(d, header, ispe_width, ispe_height);
    heif_item_id primary = 0;
    failed = heif_context_get_primary_image_ID(d->context, &primary);
    if (failed.code != heif_error_Ok) return failure(failed, error);
    status = gps_heif_check_derivations(data, size, primary, (uint32_t)ispe_width, (uint32_t)ispe_height,
                                        error->message, sizeof error->message);
    if (status != GPS_OK) return status;
    d->width = header->width;
    d->height = header->height;
    d->has_alpha = heif_image_handle_has_alpha_channel(d->handle) != 0;
    d->premultiplied = d->has_alpha && heif_image_handle_is_premultiplied_alpha(d->handle);
    header->has_alpha = d->has_alpha;
    int bits = heif_image_handle_get_luma_bits_per_pixel(d->handle);
    d->bit_depth = bits > 8 && bits <= 16 ? (uint32_t)bits : 8;
    header->bit_depth = d->bit_depth;
    read_nclx(d, header);
    status = read_icc(d, header, error);
    if (status != GPS_OK) return status;
    d->color = gps_color_create(header, GPS_ROWS_RGB, d->has_alpha, d->bit_depth > 8 ? 16 : 8, d->warnings);
    return GPS_OK;
}

// Undoes premultiplied alpha in place: c = c * max / a, rounded; 0 where a is 0. 8-bit samples,
// or 16-bit big-endian.
static void unpremultiply(uint8_t *row, uint32_t width, int sixteen) {
    for (uint32_t x = 0; x < width; x++) {
        if (sixteen) {
            uint8_t *p = row + (size_t)x * 8;
            uint32_t a = (uint32_t)p[6] << 8 | p[7];
            for (int c = 0; c < 3; c++) {
                uint32_t v = (uint32_t)p[2 * c] << 8 | p[2 * c + 1];
                v = a == 0 ? 0 : (uint32_t)(((uint64_t)v * 65535 + a / 2) / a);
                if (v > 65535) v = 65535;
                p[2 * c] = (uint8_t)(v >> 8);
                p[2 * c + 1] = (uint8_t)v;
            }
        } else {
            uint8_t *p = row + (size_t)x * 4;
            uint32_t a = p[3];
            for (int c = 0; c < 3; c++) {
                uint32_t v = a == 0 ? 0 : (p[c] * 255u + a / 2) / a;
                p[c] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
    }
}

// 10/12-bit samples (big-endian, 0..max) scaled to the full 16-bit range, rounded:
// v * 65535 / max, so that max becomes 65535 and the caller's v / 65535 is v / max.
static void widen_row(const uint8_t *source, uint8_t *target, size_t samples, uint32_t bit_depth) {
    uint32_t max = (1u << bit_depth) - 1;
    for (size_t i = 0; i < samples; i++) {
        uint32_t v = (uint32_t)source[2 * i] << 8 | source[2 * i + 1];
        if (v > max) v = max;
        v = (v * 65535u + max / 2) / max;
        target[2 * i] = (uint8_t)(v >> 8);
        target[2 * i + 1] = (uint8_t)v;
    }
}

int gps_heic_read_pixels(struct gps_heic_decoder *d, float *rgb, float *alpha, gps_decode_error *error) {
    int hdr = d->bit_depth > 8;
    enum heif_chroma chroma = hdr ? (d->has_alpha ? heif_chroma_interleaved_RRGGBBAA_BE : heif_chroma_interleaved_RRGGBB_BE)
                                  : (d->has_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) return GPS_ERR_NO_MEMORY;
    // Damaged data is an error, not a picture with decoding warnings attached.
    options->strict_decoding = 1;
    gps_quiet_stderr_begin();
    struct heif_error failed = heif_decode_image(d->handle, &d->image, heif_colorspace_RGB, chroma, options);
    gps_quiet_stderr_end();
    heif_decoding_options_free(options);
    if (failed.code != heif_error_Ok) return failure(failed, error);
#ifdef __GLIBC__
    // What libde265 and libheif freed during the decode (the YCbCr pictures, in blocks below
    // glibc's mmap threshold, some in the decoder threads' arenas) stays in the process until
    // trimmed: 111 MiB at 48 MP, measured, which the float planes would come on top of.
    malloc_trim(0);
#endif

    int stride = 0;
    uint8_t *pixels = heif_image_get_plane(d->image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(d->image, heif_channel_interleaved);
    int height = heif_image_get_height(d->image, heif_channel_interleaved);
    uint32_t channels = d->has_alpha ? 4 : 3;
    size_t row_bytes = (size_t)d->width * channels * (hdr ? 2 : 1);
    if (pixels == NULL || width != (int)d->width || height != (int)d->height || stride < 0 || (size_t)stride < row_bytes) {
        gps_set_message(error->message, sizeof error->message, "decoded image does not match the header's size");
        return GPS_ERR_CORRUPT;
    }
    uint32_t bit_depth = d->bit_depth;
    if (hdr) {
        int range = heif_image_get_bits_per_pixel_range(d->image, heif_channel_interleaved);
        if (range > 8 && range <= 16) bit_depth = (uint32_t)range;
        d->row = malloc(row_bytes);
        if (d->row == NULL) return GPS_ERR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < d->height; y++) {
        uint8_t *row = pixels + (size_t)stride * y;
        if (hdr) {
            widen_row(row, d->row, (size_t)d->width * channels, bit_depth);
            row = d->row;
        }
        if (d->premultiplied) unpremultiply(row, d->width, hdr);
        const uint8_t *converted = gps_color_apply(d->color, row, d->width);
        if (converted == NULL) return GPS_ERR_NO_MEMORY;
        gps_row_to_planes(converted, d->width, gps_color_channels(d->color, channels), hdr ? 16 : 8, d->table,
                          gps_row_in_planes(rgb, alpha, d->width, d->height, y));
    }
    // The RGB image is not needed any more: free it now, before the caller's next allocation.
    heif_image_release(d->image);
    d->image = NULL;
    return GPS_OK;
}

void gps_heic_destroy(struct gps_heic_decoder *d) {
    if (d == NULL) return;
    if (d->image != NULL) heif_image_release(d->image);
    if (d->handle != NULL) heif_image_handle_release(d->handle);
    if (d->context != NULL) heif_context_free(d->context);
    free(d->file);
    gps_color_destroy(d->color);
    free(d->icc);
    free(d->row);
    free(d);
}
