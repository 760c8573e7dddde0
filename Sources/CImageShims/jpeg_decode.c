// JPEG decoding with libjpeg-turbo, protected by setjmp.
//
// libjpeg's default error manager prints to stderr and calls exit(); ours
// formats the message into the caller's buffer and longjmps back. State that
// must survive the longjmp lives in `struct jpeg_decoder`, owned by the caller
// of the setjmp-ing function (see png_decode.c).

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <jerror.h>

#include "cimageshims.h"
#include "util.h"

struct jpeg_decoder {
    struct jpeg_error_mgr error;  // first, so a j_common_ptr's err casts back to us
    jmp_buf jump;
    struct jpeg_decompress_struct info;
    int created;
    const uint8_t *bytes;
    size_t size;
    uint64_t max_pixels;
    gps_pixels result;
    uint8_t *cmyk_row;
    char *message;
    size_t message_size;
};

static void on_error(j_common_ptr common) {
    struct jpeg_decoder *d = (struct jpeg_decoder *)common->err;
    char text[JMSG_LENGTH_MAX];
    common->err->format_message(common, text);
    gps_set_message(d->message, d->message_size, text);
    longjmp(d->jump, 1);
}

// Warnings are ignored (real-world files often have stray bytes), except
// running out of data: libjpeg would pad with grey and report success.
static void on_message(j_common_ptr common, int level) {
    if (level < 0 && common->err->msg_code == JWRN_JPEG_EOF) on_error(common);
}

static void on_output(j_common_ptr common) { (void)common; }

// Adobe writes CMYK inverted (255 = no ink); others write it plain.
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

static int decode_protected(struct jpeg_decoder *d) {
    struct jpeg_decompress_struct *info = &d->info;
    if (setjmp(d->jump)) {
        if (d->error.msg_code == JERR_EMPTY_IMAGE) return GPS_ERR_EMPTY;
        if (d->error.msg_code == JERR_OUT_OF_MEMORY) return GPS_ERR_NO_MEMORY;
        return GPS_ERR_CORRUPT;
    }
    jpeg_create_decompress(info);
    d->created = 1;
    jpeg_mem_src(info, d->bytes, (unsigned long)d->size);
    jpeg_read_header(info, TRUE);

    d->result.width = info->image_width;
    d->result.height = info->image_height;
    if (info->image_width == 0 || info->image_height == 0) return GPS_ERR_EMPTY;
    // Checked before jpeg_start_decompress, which allocates the pixel buffers.
    if ((uint64_t)info->image_width * info->image_height > d->max_pixels) return GPS_ERR_TOO_LARGE;

    int cmyk = 0;
    switch (info->jpeg_color_space) {
    case JCS_GRAYSCALE:
        info->out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        info->out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        info->out_color_space = JCS_RGB;
        break;
    }
    jpeg_start_decompress(info);

    uint32_t width = info->output_width, height = info->output_height;
    uint32_t channels = cmyk ? 3 : (uint32_t)info->output_components;
    d->result.width = width;
    d->result.height = height;
    d->result.channels = channels;
    d->result.bit_depth = 8;
    size_t row_bytes = (size_t)width * channels;
    d->result.data = malloc(row_bytes * height);
    if (cmyk) d->cmyk_row = malloc((size_t)width * 4);
    if (d->result.data == NULL || (cmyk && d->cmyk_row == NULL)) return GPS_ERR_NO_MEMORY;

    while (info->output_scanline < height) {
        uint8_t *row = (uint8_t *)d->result.data + row_bytes * info->output_scanline;
        JSAMPROW target = cmyk ? d->cmyk_row : row;
        if (jpeg_read_scanlines(info, &target, 1) != 1) {
            gps_set_message(d->message, d->message_size, "decoder returned no scanline");
            return GPS_ERR_CORRUPT;
        }
        if (cmyk) cmyk_to_rgb(d->cmyk_row, row, width, info->saw_Adobe_marker);
    }
    jpeg_finish_decompress(info);
    return GPS_OK;
}

int gps_jpeg_decode(const void *bytes, size_t size, uint64_t max_pixels,
                    gps_pixels *out, char *message, size_t message_size) {
    // Large (jmp_buf + decompress struct): keep it off the caller's stack.
    struct jpeg_decoder *d = calloc(1, sizeof *d);
    memset(out, 0, sizeof *out);
    if (d == NULL) return GPS_ERR_NO_MEMORY;
    d->bytes = bytes;
    d->size = size;
    d->max_pixels = max_pixels;
    d->message = message;
    d->message_size = message_size;
    gps_set_message(message, message_size, "");
    d->info.err = jpeg_std_error(&d->error);
    d->error.error_exit = on_error;
    d->error.emit_message = on_message;
    d->error.output_message = on_output;

    int status = decode_protected(d);
    if (d->created) jpeg_destroy_decompress(&d->info);
    free(d->cmyk_row);
    if (status != GPS_OK) {
        free(d->result.data);
        d->result.data = NULL;
    }
    *out = d->result;
    free(d);
    return status;
}
