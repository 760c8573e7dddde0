// gps_reader: sniffs the signature, then hands the stream to the PNG or JPEG decoder.

#include <stdlib.h>
#include <string.h>

#include "decoders.h"

static const uint8_t png_signature[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};
static const uint8_t jpeg_signature[3] = {0xFF, 0xD8, 0xFF};

struct gps_reader {
    gps_stream stream;
    gps_sample_table table;
    gps_warnings warnings;
    int format;
    struct gps_png_decoder *png;
    struct gps_jpeg_decoder *jpeg;
};

gps_reader *gps_reader_create(int fd, const void *bytes, size_t size) {
    gps_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    if (gps_stream_init(&reader->stream, fd, bytes, size) != 0) {
        free(reader);
        return NULL;
    }
    gps_sample_table_init(&reader->table);
    return reader;
}

// A library error caused by a failed read(2) is a read error, whatever the library called it.
static int checked(gps_reader *reader, int status, gps_decode_error *error) {
    if (status != GPS_OK && reader->stream.read_errno != 0) {
        error->read_errno = reader->stream.read_errno;
        return GPS_ERR_READ;
    }
    return status;
}

int gps_reader_read_header(gps_reader *reader, gps_image_header *header, gps_decode_error *error) {
    memset(header, 0, sizeof *header);
    memset(error, 0, sizeof *error);
    size_t available = gps_stream_peek(&reader->stream, sizeof png_signature);
    if (available == 0) {
        if (reader->stream.read_errno != 0) return checked(reader, GPS_ERR_READ, error);
        return GPS_ERR_NO_DATA;
    }
    const uint8_t *first = reader->stream.next;
    if (available >= sizeof png_signature && memcmp(first, png_signature, sizeof png_signature) == 0) {
        reader->format = GPS_FORMAT_PNG;
        reader->png = gps_png_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->png == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_png_read_header(reader->png, header, error), error);
    }
    if (available >= sizeof jpeg_signature && memcmp(first, jpeg_signature, sizeof jpeg_signature) == 0) {
        reader->format = GPS_FORMAT_JPEG;
        reader->jpeg = gps_jpeg_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->jpeg == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_jpeg_read_header(reader->jpeg, header, error), error);
    }
    return checked(reader, GPS_ERR_NOT_IMAGE, error);
}

int gps_reader_read_pixels(gps_reader *reader, float *rgb, float *alpha, gps_decode_error *error) {
    memset(error, 0, sizeof *error);
    switch (reader->format) {
    case GPS_FORMAT_PNG: return checked(reader, gps_png_read_pixels(reader->png, rgb, alpha, error), error);
    case GPS_FORMAT_JPEG: return checked(reader, gps_jpeg_read_pixels(reader->jpeg, rgb, alpha, error), error);
    default: return GPS_ERR_NOT_IMAGE;
    }
}

const char *gps_reader_warning(const gps_reader *reader, int *count) {
    if (count != NULL) *count = reader->warnings.count;
    return reader->warnings.first;
}

void gps_reader_destroy(gps_reader *reader) {
    if (reader == NULL) return;
    gps_png_destroy(reader->png);
    gps_jpeg_destroy(reader->jpeg);
    gps_stream_release(&reader->stream);
    free(reader);
}
