// PNG encoding streamed to a file descriptor, one row at a time, so that writing an image
// needs memory for a row, not for the whole file. libpng reports errors by longjmp, so every
// function that calls into it sets its own setjmp; after an error the writer is dead and
// every later call returns the same status.

#include <errno.h>
#include <png.h>
#include <unistd.h>

#include "cimageshims.h"
#include "png_errors.h"
#include "util.h"

struct gps_png_writer {
    png_structp png;
    png_infop info;
    int fd;
    int status;       // GPS_OK until the first failure
    int write_errno;  // for GPS_ERR_WRITE
    size_t used;
    uint8_t buffer[1 << 16];  // libpng hands over small pieces; write(2) gets 64 KB
    char text[256];
    gps_message_buffer message;
};

// Writes the buffer out, retrying short and interrupted writes; 0 or the errno.
static int drain(struct gps_png_writer *w) {
    size_t offset = 0;
    while (offset < w->used) {
        ssize_t n = write(w->fd, w->buffer + offset, w->used - offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        offset += (size_t)n;
    }
    w->used = 0;
    return 0;
}

static void fail_write(png_structp png, struct gps_png_writer *w, int code) {
    w->status = GPS_ERR_WRITE;
    w->write_errno = code;
    png_error(png, strerror(code));
}

static void write_bytes(png_structp png, png_bytep data, size_t length) {
    struct gps_png_writer *w = png_get_io_ptr(png);
    while (length > 0) {
        if (w->used == sizeof w->buffer) {
            int code = drain(w);
            if (code != 0) fail_write(png, w, code);
        }
        size_t take = sizeof w->buffer - w->used;
        if (take > length) take = length;
        memcpy(w->buffer + w->used, data, take);
        w->used += take;
        data += take;
        length -= take;
    }
}

static void flush_bytes(png_structp png) { (void)png; }

// The status after libpng jumped back: a write failure, or whatever libpng rejected.
static int failed(struct gps_png_writer *w) {
    if (w->status == GPS_OK) w->status = GPS_ERR_CORRUPT;
    return w->status;
}

int gps_png_writer_open(gps_png_writer **out, int fd, uint32_t width, uint32_t height, uint32_t channels) {
    struct gps_png_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (w == NULL) return GPS_ERR_NO_MEMORY;
    w->fd = fd;
    w->message = (gps_message_buffer){w->text, sizeof w->text, NULL};
    if (width == 0 || height == 0) return w->status = GPS_ERR_EMPTY;
    if (channels != 3 && channels != 4) {
        gps_set_message(w->text, sizeof w->text, "only RGB and RGBA can be encoded");
        return w->status = GPS_ERR_CORRUPT;
    }
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->message, gps_png_on_error, gps_png_on_warning);
    if (w->png == NULL) return w->status = GPS_ERR_NO_MEMORY;
    w->info = png_create_info_struct(w->png);
    if (w->info == NULL) return w->status = GPS_ERR_NO_MEMORY;
    if (setjmp(png_jmpbuf(w->png))) return failed(w);
    png_set_write_fn(w->png, w, write_bytes, flush_bytes);
    int color_type = channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(w->png, w->info, width, height, 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // The same zlib level as gps_png_encode (see there), so both give the same bytes.
    png_set_compression_level(w->png, 1);
    // The pixels are sRGB (decoding converted any embedded profile), and the file says so:
    // an sRGB chunk (no gAMA/cHRM fallback: every current decoder that manages colour knows sRGB).
    png_set_sRGB(w->png, w->info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(w->png, w->info);
    return GPS_OK;
}

int gps_png_writer_row(gps_png_writer *w, const uint8_t *row) {
    if (w->status != GPS_OK) return w->status;
    if (setjmp(png_jmpbuf(w->png))) return failed(w);
    png_write_row(w->png, (png_const_bytep)row);
    return GPS_OK;
}

int gps_png_writer_finish(gps_png_writer *w) {
    if (w->status != GPS_OK) return w->status;
    if (setjmp(png_jmpbuf(w->png))) return failed(w);
    png_write_end(w->png, NULL);
    int code = drain(w);
    if (code != 0) {
        w->status = GPS_ERR_WRITE;
        w->write_errno = code;
        gps_set_message(w->text, sizeof w->text, strerror(code));
    }
    return w->status;
}

const char *gps_png_writer_message(const gps_png_writer *w) { return w ? w->text : "out of memory"; }

int gps_png_writer_errno(const gps_png_writer *w) { return w ? w->write_errno : 0; }

void gps_png_writer_free(gps_png_writer *w) {
    if (w == NULL) return;
    if (w->png != NULL) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
    free(w);
}
