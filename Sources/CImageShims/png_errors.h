// libpng error and warning handlers shared by the PNG decoder and encoder. libpng is given a
// gps_message_buffer as its error pointer: an error copies libpng's text there and jumps back
// to the caller's setjmp; warnings (bad ancillary CRCs, benign errors such as an iCCP libpng
// dislikes or extra data after the image) are not fatal, must not reach stderr, and are kept
// for --verbose.
#ifndef GPS_PNG_ERRORS_H
#define GPS_PNG_ERRORS_H

#include <png.h>

#include "util.h"

static void gps_png_on_error(png_structp png, png_const_charp text) {
    gps_message_buffer *buffer = png_get_error_ptr(png);
    gps_set_message(buffer->text, buffer->size, text);
    png_longjmp(png, 1);
}

static void gps_png_on_warning(png_structp png, png_const_charp text) {
    // libpng reports a chunk longer than png_set_chunk_malloc_max as a benign error and then
    // allocates its declared length anyway (a 1 KB file declaring a 1.9 GB tEXt asked for
    // 1.9 GB: tools/fuzz, png target). No real file has such a chunk: it is a damaged one.
    if (strstr(text, "chunk data is too large") != NULL) png_error(png, text);
    gps_message_buffer *buffer = png_get_error_ptr(png);
    gps_warn(buffer->warnings, text);
}

#endif
