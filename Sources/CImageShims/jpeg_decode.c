// JPEG decoding with libjpeg-turbo from a gps_stream, row by row into float planes.
//
// libjpeg's default error manager prints to stderr and calls exit(); ours formats the message
// into the caller's buffer and longjmps back. Corrupt-data warnings are errors too (see
// on_message).

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <jerror.h>

#include "color.h"
#include "decoders.h"
#include "util.h"

// Our source manager: libjpeg reads the stream's windows in place (no copy).
struct stream_source {
    struct jpeg_source_mgr pub;
    gps_stream *stream;
};

struct gps_jpeg_decoder {
    struct jpeg_error_mgr error;  // first, so a j_common_ptr's err casts back to us
    jmp_buf jump;
    struct jpeg_decompress_struct info;
    struct stream_source source;
    const gps_sample_table *table;
    int created;
    int cmyk;
    uint8_t *row;      // one decoded row (CMYK: 4 samples a pixel)
    uint8_t *rgb_row;  // CMYK only: the row converted to RGB
    uint8_t *icc;      // the ICC profile gathered from APP2 segments (malloc'd by libjpeg)
    gps_color *color;  // NULL: the samples are sRGB already (or plain CMYK, see cmyk_to_rgb)
    gps_warnings *warnings;
    uint8_t *exif;     // the header's EXIF block, copied (see find_exif)
    char *message;
    size_t message_size;
};

static void on_error(j_common_ptr common) {
    struct gps_jpeg_decoder *d = (struct gps_jpeg_decoder *)common->err;
    char text[JMSG_LENGTH_MAX];
    common->err->format_message(common, text);
    gps_set_message(d->message, d->message_size, text);
    longjmp(d->jump, 1);
}

// libjpeg reports damaged data as warnings (level -1) and goes on: a file cut short becomes
// grey ("Premature end of JPEG file"), garbage in the entropy data becomes blocks of noise
// ("Corrupt JPEG data: ..."), and the decode reports success. Every warning is fatal here
// except three about metadata that do not touch the pixels (kept for --verbose): JFIF and Adobe
// versions, and a malformed ICC profile set (the profile is then not used). Levels >= 0 are
// traces.
static void on_message(j_common_ptr common, int level) {
    if (level >= 0) return;
    int code = common->err->msg_code;
    if (code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM || code == JWRN_BOGUS_ICC) {
        struct gps_jpeg_decoder *d = (struct gps_jpeg_decoder *)common->err;
        char text[JMSG_LENGTH_MAX];
        common->err->format_message(common, text);
        gps_warn(d->warnings, text);
        return;
    }
    on_error(common);
}

static void on_output(j_common_ptr common) { (void)common; }

static void init_source(j_decompress_ptr info) { (void)info; }

static boolean fill_input_buffer(j_decompress_ptr info) {
    struct stream_source *source = (struct stream_source *)info->src;
    gps_stream *stream = source->stream;
    if (gps_stream_fill(stream) == 0) {
        if (stream->read_errno != 0) ERREXIT(info, JERR_FILE_READ);
        // The end came before EOI: on_message turns this warning into an error.
        WARNMS(info, JWRN_JPEG_EOF);
        ERREXIT(info, JERR_INPUT_EOF);  // not reached; on_message does not return
    }
    source->pub.next_input_byte = stream->next;
    source->pub.bytes_in_buffer = stream->available;
    stream->next += stream->available;
    stream->available = 0;
    return TRUE;
}

static void skip_input_data(j_decompress_ptr info, long count) {
    struct jpeg_source_mgr *source = info->src;
    if (count <= 0) return;
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        source->fill_input_buffer(info);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void term_source(j_decompress_ptr info) { (void)info; }

struct gps_jpeg_decoder *gps_jpeg_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings) {
    struct gps_jpeg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->table = table;
    d->warnings = warnings;
    d->source.stream = stream;
    d->source.pub.init_source = init_source;
    d->source.pub.fill_input_buffer = fill_input_buffer;
    d->source.pub.skip_input_data = skip_input_data;
    d->source.pub.resync_to_restart = jpeg_resync_to_restart;
    d->source.pub.term_source = term_source;
    d->info.err = jpeg_std_error(&d->error);
    d->error.error_exit = on_error;
    d->error.emit_message = on_message;
    d->error.output_message = on_output;
    return d;
}

static int failure(struct gps_jpeg_decoder *d) {
    if (d->error.msg_code == JERR_EMPTY_IMAGE) return GPS_ERR_EMPTY;
    if (d->error.msg_code == JERR_OUT_OF_MEMORY) return GPS_ERR_NO_MEMORY;
    return GPS_ERR_CORRUPT;
}

// The TIFF data of the first APP1 segment that starts with "Exif\0\0", copied: the saved
// markers live in libjpeg's image pool, which jpeg_finish_decompress frees, but the header
// promises the block until gps_reader_destroy (found by tools/fuzz, which reads it after the
// pixels). A segment is at most 64 KiB. Returns 0 when out of memory.
static int find_exif(struct gps_jpeg_decoder *d, gps_image_header *header) {
    for (jpeg_saved_marker_ptr m = d->info.marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            size_t size = m->data_length - 6;
            d->exif = malloc(size > 0 ? size : 1);
            if (d->exif == NULL) return 0;
            memcpy(d->exif, m->data + 6, size);
            header->exif = d->exif;
            header->exif_size = size;
            return 1;
        }
    }
    return 1;
}

int gps_jpeg_read_header(struct gps_jpeg_decoder *d, gps_image_header *header, gps_decode_error *error) {
    d->message = error->message;
    d->message_size = sizeof error->message;
    header->format = GPS_FORMAT_JPEG;
    if (setjmp(d->jump)) return failure(d);
    jpeg_create_decompress(&d->info);
    d->created = 1;
    d->info.src = &d->source.pub;
    jpeg_save_markers(&d->info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->info, JPEG_APP0 + 2, 0xFFFF);  // ICC_PROFILE, possibly in several parts
    // Reads up to the first SOS: the size is known, nothing image-sized is allocated yet.
    jpeg_read_header(&d->info, TRUE);
    header->width = d->info.image_width;
    header->height = d->info.image_height;
    if (header->width == 0 || header->height == 0) return GPS_ERR_EMPTY;
    if (!find_exif(d, header)) return GPS_ERR_NO_MEMORY;

    gps_row_kind kind = GPS_ROWS_RGB;
    switch (d->info.jpeg_color_space) {
    case JCS_GRAYSCALE:
        d->info.out_color_space = JCS_GRAYSCALE;
        kind = GPS_ROWS_GRAY;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        d->info.out_color_space = JCS_CMYK;
        d->cmyk = 1;
        // Adobe's writers store CMYK inverted (255 = no ink); libjpeg hands the samples over
        // as stored.
        kind = d->info.saw_Adobe_marker ? GPS_ROWS_CMYK_INVERTED : GPS_ROWS_CMYK;
        break;
    default:
        d->info.out_color_space = JCS_RGB;
        break;
    }
    // Reassembles the ICC_PROFILE APP2 chunks by their sequence numbers; a malformed set gives
    // FALSE and a JWRN_BOGUS_ICC warning (not fatal: on_message).
    JOCTET *icc = NULL;
    unsigned int icc_size = 0;
    if (jpeg_read_icc_profile(&d->info, &icc, &icc_size) && icc != NULL) {
        d->icc = icc;
        header->icc = icc;
        header->icc_size = icc_size;
    }
    d->color = gps_color_create(header, kind, 0, 8, d->warnings);
    return GPS_OK;
}

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

int gps_jpeg_read_pixels(struct gps_jpeg_decoder *d, float *rgb, float *alpha, gps_decode_error *error) {
    (void)alpha;  // JPEG has no alpha
    d->message = error->message;
    d->message_size = sizeof error->message;
    if (setjmp(d->jump)) return failure(d);
    struct jpeg_decompress_struct *info = &d->info;
    // Allocates libjpeg's working memory: a few rows for baseline files; progressive files
    // keep every DCT coefficient (2 bytes per sample, ~3 bytes per pixel at 4:2:0).
    jpeg_start_decompress(info);

    uint32_t width = info->output_width, height = info->output_height;
    uint32_t samples = (uint32_t)info->output_components;  // 1, 3, or 4 for CMYK
    d->row = malloc((size_t)width * samples);
    if (d->cmyk) d->rgb_row = malloc((size_t)width * 3);
    if (d->row == NULL || (d->cmyk && d->rgb_row == NULL)) return GPS_ERR_NO_MEMORY;

    while (info->output_scanline < height) {
        size_t y = info->output_scanline;
        JSAMPROW target = d->row;
        if (jpeg_read_scanlines(info, &target, 1) != 1) {
            gps_set_message(d->message, d->message_size, "decoder returned no scanline");
            return GPS_ERR_CORRUPT;
        }
        const uint8_t *row = d->row;
        uint32_t channels = samples;
        if (d->color != NULL) {
            // Through the profile: CMYK and gray become RGB too.
            row = gps_color_apply(d->color, d->row, width);
            if (row == NULL) return GPS_ERR_NO_MEMORY;
            channels = gps_color_channels(d->color, samples);
        } else if (d->cmyk) {
            cmyk_to_rgb(d->row, d->rgb_row, width, info->saw_Adobe_marker);
            row = d->rgb_row;
            channels = 3;
        }
        gps_row_to_planes(row, width, channels, 8, d->table, gps_row_in_planes(rgb, NULL, width, height, y));
    }
    // Reads to EOI, so damage after the last row is reported too.
    jpeg_finish_decompress(info);
    return GPS_OK;
}

void gps_jpeg_destroy(struct gps_jpeg_decoder *d) {
    if (d == NULL) return;
    if (d->created) jpeg_destroy_decompress(&d->info);
    gps_color_destroy(d->color);
    free(d->icc);
    free(d->row);
    free(d->rgb_row);
    free(d->exif);
    free(d);
}
