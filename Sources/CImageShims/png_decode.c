// PNG decoding with libpng from a gps_stream, row by row into float planes.

#include <png.h>

#include "color.h"
#include "decoders.h"
#include "png_errors.h"
#include "util.h"

// The longest ancillary chunk (and decompressed iCCP) read: 64 MiB, far above any real ICC
// profile or EXIF block.
#define GPS_PNG_CHUNK_MAX ((png_alloc_size_t)64 << 20)

struct gps_png_decoder {
    gps_stream *stream;
    const gps_sample_table *table;
    png_structp png;
    png_infop info;
    uint32_t width, height, channels, bit_depth;
    int passes;
    uint8_t *pixels;  // one row, or the whole image for interlaced files
    png_bytep *rows;
    gps_message_buffer message;
    gps_warnings *warnings;
    gps_color *color;  // NULL: the samples are sRGB already
};

static void read_bytes(png_structp png, png_bytep destination, size_t length) {
    struct gps_png_decoder *d = png_get_io_ptr(png);
    if (gps_stream_read(d->stream, destination, length) != length) {
        png_error(png, d->stream->read_errno != 0 ? "read error" : "file is truncated");
    }
}

struct gps_png_decoder *gps_png_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings) {
    struct gps_png_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->stream = stream;
    d->table = table;
    d->warnings = warnings;
    d->message.warnings = warnings;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->message, gps_png_on_error, gps_png_on_warning);
    if (d->png != NULL) d->info = png_create_info_struct(d->png);
    if (d->info == NULL) {
        gps_png_destroy(d);
        return NULL;
    }
    return d;
}

// Width and height straight from the IHDR bytes, before libpng sees them: libpng rejects a
// zero size with a generic "Invalid IHDR data", and an empty image deserves its own message.
static int has_zero_size(struct gps_png_decoder *d, gps_image_header *header) {
    // signature (8), chunk length (4), "IHDR" (4), width (4), height (4)
    if (gps_stream_peek(d->stream, 24) < 24) return 0;
    const uint8_t *b = d->stream->next;
    if (memcmp(b + 12, "IHDR", 4) != 0) return 0;
    header->width = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
    header->height = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
    return header->width == 0 || header->height == 0;
}

// The embedded ICC profile and EXIF block, when they come before the pixels (libpng keeps
// both in `info`, so the pointers stay valid until destroy). An sRGB chunk wins over iCCP, as
// the PNG specification asks of decoders that know sRGB. An eXIf after the image data is not
// seen: PNG 3 puts it before IDAT, and so do the encoders we know of.
static void find_metadata(struct gps_png_decoder *d, gps_image_header *header) {
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_size = 0;
    if (!png_get_valid(d->png, d->info, PNG_INFO_sRGB) &&
        png_get_iCCP(d->png, d->info, &name, &compression, &profile, &profile_size) == PNG_INFO_iCCP) {
        header->icc = profile;
        header->icc_size = profile_size;
    }
    png_bytep exif = NULL;
    png_uint_32 exif_size = 0;
    if (png_get_eXIf_1(d->png, d->info, &exif_size, &exif) == PNG_INFO_eXIf && exif != NULL) {
        header->exif = exif;
        header->exif_size = exif_size;
    }
}

int gps_png_read_header(struct gps_png_decoder *d, gps_image_header *header, gps_decode_error *error) {
    d->message.text = error->message;
    d->message.size = sizeof error->message;
    header->format = GPS_FORMAT_PNG;
    if (has_zero_size(d, header)) return GPS_ERR_EMPTY;
    if (setjmp(png_jmpbuf(d->png))) return GPS_ERR_CORRUPT;

    // libpng's default 1M x 1M cap would produce a confusing message; the caller's pixel limit
    // is the one that matters.
    png_set_user_limits(d->png, 0x7fffffff, 0x7fffffff);
    // An ancillary chunk's buffer is allocated at its declared length before it is read: a
    // 1 KB file declaring a 1.9 GB tEXt made libpng ask for 1.9 GB (tools/fuzz, png target;
    // Debian's libpng sets no cap). ICC profiles, EXIF and XMP text are at most a few MB; a
    // longer chunk is refused (gps_png_on_warning). Text and other chunks that cannot change
    // the pixels are not even read: libpng skips them as unknown chunks, a piece at a time.
    png_set_chunk_malloc_max(d->png, GPS_PNG_CHUNK_MAX);
    static const png_byte ignored[] = "tEXt\0zTXt\0iTXt\0sPLT\0hIST\0tIME\0pCAL\0sCAL\0oFFs\0pHYs\0bKGD\0sBIT";
    png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, ignored, (int)(sizeof ignored / 5));
    // Benign errors are warnings (gps_png_on_warning keeps the first for --verbose): libpng
    // uses them for problems that leave the pixels intact, such as an iCCP it dislikes ("known
    // incorrect sRGB profile" on scikit-image's astronaut.png and on many files Photoshop
    // wrote), bad tEXt/zTXt contents or data after the image. Refusing them (this decoder did
    // until stop 31) refused photos that every viewer shows. Anything that touches the pixels
    // is a png_error and stays fatal: too little image data, a truncated file, a CRC error in a
    // critical chunk (IHDR, PLTE, IDAT, IEND), a bad zlib stream inside the image. A CRC error
    // in an ancillary chunk is a warning and the chunk is skipped, as the PNG spec allows
    // (fixture rgb8_gamma_badtext).
    png_set_benign_errors(d->png, 1);
    png_set_read_fn(d->png, d, read_bytes);
    png_read_info(d->png, d->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    header->width = width;
    header->height = height;
    if (width == 0 || height == 0) return GPS_ERR_EMPTY;

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(d->png);
    // 16-bit samples stay big-endian as stored; gps_row_to_planes reads them that way.
    d->passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);

    d->width = width;
    d->height = height;
    d->channels = png_get_channels(d->png, d->info);
    d->bit_depth = png_get_bit_depth(d->png, d->info);
    header->has_alpha = d->channels == 2 || d->channels == 4;
    find_metadata(d, header);
    gps_row_kind kind = d->channels <= 2 ? GPS_ROWS_GRAY : GPS_ROWS_RGB;
    d->color = gps_color_create(header, kind, header->has_alpha, d->bit_depth, d->warnings);
    return GPS_OK;
}

// One decoded row through the colour transform into the planes.
static int deliver_row(struct gps_png_decoder *d, const uint8_t *row, float *rgb, float *alpha, uint32_t y) {
    const uint8_t *converted = gps_color_apply(d->color, row, d->width);
    if (converted == NULL) return GPS_ERR_NO_MEMORY;
    gps_row_to_planes(converted, d->width, gps_color_channels(d->color, d->channels), d->bit_depth, d->table,
                      gps_row_in_planes(rgb, alpha, d->width, d->height, y));
    return GPS_OK;
}

int gps_png_read_pixels(struct gps_png_decoder *d, float *rgb, float *alpha, gps_decode_error *error) {
    d->message.text = error->message;
    d->message.size = sizeof error->message;
    if (setjmp(png_jmpbuf(d->png))) return GPS_ERR_CORRUPT;

    size_t row_bytes = png_get_rowbytes(d->png, d->info);
    // An interlaced (Adam7) image arrives in 7 passes over the whole picture, so libpng needs
    // all of it in its sample format at once: only then is there a full 8/16-bit copy next to
    // the float planes (3-8 bytes per pixel more). Other images use one row buffer.
    size_t rows = d->passes > 1 ? d->height : 1;
    if (row_bytes == 0 || rows > SIZE_MAX / row_bytes) return GPS_ERR_NO_MEMORY;
    d->pixels = malloc(row_bytes * rows);
    if (d->pixels == NULL) return GPS_ERR_NO_MEMORY;

    if (d->passes > 1) {
        d->rows = malloc(sizeof(png_bytep) * d->height);
        if (d->rows == NULL) return GPS_ERR_NO_MEMORY;
        for (uint32_t y = 0; y < d->height; y++) d->rows[y] = d->pixels + row_bytes * y;
        png_read_image(d->png, d->rows);
        for (uint32_t y = 0; y < d->height; y++) {
            if (deliver_row(d, d->rows[y], rgb, alpha, y) != GPS_OK) return GPS_ERR_NO_MEMORY;
        }
    } else {
        for (uint32_t y = 0; y < d->height; y++) {
            png_read_row(d->png, d->pixels, NULL);
            if (deliver_row(d, d->pixels, rgb, alpha, y) != GPS_OK) return GPS_ERR_NO_MEMORY;
        }
    }
    // Reading up to IEND catches files truncated or corrupted after the pixels.
    png_read_end(d->png, NULL);
    return GPS_OK;
}

void gps_png_destroy(struct gps_png_decoder *d) {
    if (d == NULL) return;
    png_destroy_read_struct(d->png ? &d->png : NULL, d->info ? &d->info : NULL, NULL);
    gps_color_destroy(d->color);
    free(d->rows);
    free(d->pixels);
    free(d);
}
