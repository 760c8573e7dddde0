// PNG decoding with libpng, protected by setjmp.
//
// All state that must survive a longjmp lives in `struct png_decoder`, which is
// owned by gps_png_decode (the caller of the function that calls setjmp), so no
// automatic variable of the setjmp-ing function is modified between setjmp and
// longjmp (C11 7.13.2.1p3).

#include <png.h>

#include "cimageshims.h"
#include "png_errors.h"
#include "util.h"

struct png_decoder {
    const uint8_t *bytes;
    size_t size;
    size_t offset;
    uint64_t max_pixels;
    png_structp png;
    png_infop info;
    png_bytep *rows;
    gps_pixels result;
    int status;
    gps_message_buffer message;
};

static void read_bytes(png_structp png, png_bytep destination, size_t length) {
    struct png_decoder *d = png_get_io_ptr(png);
    if (length > d->size - d->offset) png_error(png, "file is truncated");
    memcpy(destination, d->bytes + d->offset, length);
    d->offset += length;
}

static int decode_protected(struct png_decoder *d) {
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->message, gps_png_on_error, gps_png_on_warning);
    if (d->png == NULL) return GPS_ERR_NO_MEMORY;
    d->info = png_create_info_struct(d->png);
    if (d->info == NULL) return GPS_ERR_NO_MEMORY;
    if (setjmp(png_jmpbuf(d->png))) return d->status != GPS_OK ? d->status : GPS_ERR_CORRUPT;

    // libpng's default 1M x 1M cap would produce a confusing message; the
    // caller's max_pixels check below is the one that matters.
    png_set_user_limits(d->png, 0x7fffffff, 0x7fffffff);
    png_set_read_fn(d->png, d, read_bytes);
    png_read_info(d->png, d->info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0;
    png_get_IHDR(d->png, d->info, &width, &height, &bit_depth, &color_type, NULL, NULL, NULL);
    d->result.width = width;
    d->result.height = height;
    if (width == 0 || height == 0) return GPS_ERR_EMPTY;
    if ((uint64_t)width * height > d->max_pixels) return GPS_ERR_TOO_LARGE;

    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(d->png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(d->png);
    if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(d->png);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bit_depth == 16) png_set_swap(d->png);  // PNG stores big-endian; hand Swift native uint16
#endif
    png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);

    size_t row_bytes = png_get_rowbytes(d->png, d->info);
    d->result.channels = png_get_channels(d->png, d->info);
    d->result.bit_depth = png_get_bit_depth(d->png, d->info);
    if (row_bytes == 0 || height > SIZE_MAX / row_bytes) return GPS_ERR_NO_MEMORY;
    d->result.data = malloc(row_bytes * height);
    d->rows = malloc(sizeof(png_bytep) * height);
    if (d->result.data == NULL || d->rows == NULL) return GPS_ERR_NO_MEMORY;
    for (png_uint_32 y = 0; y < height; y++) d->rows[y] = (png_bytep)d->result.data + row_bytes * y;

    png_read_image(d->png, d->rows);
    // Reading up to IEND catches files truncated or corrupted after the pixels.
    png_read_end(d->png, NULL);
    return GPS_OK;
}

int gps_png_decode(const void *bytes, size_t size, uint64_t max_pixels,
                   gps_pixels *out, char *message, size_t message_size) {
    struct png_decoder d;
    memset(&d, 0, sizeof d);
    d.bytes = bytes;
    d.size = size;
    d.max_pixels = max_pixels;
    d.message = (gps_message_buffer){message, message_size};
    gps_set_message(message, message_size, "");

    int status = decode_protected(&d);
    png_destroy_read_struct(d.png ? &d.png : NULL, d.info ? &d.info : NULL, NULL);
    free(d.rows);
    if (status != GPS_OK) {
        free(d.result.data);
        d.result.data = NULL;
    }
    *out = d.result;
    return status;
}
