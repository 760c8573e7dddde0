// gps_reader: sniffs the signature, then hands the stream to the PNG, JPEG, HEIF or WebP decoder.

#include <stdlib.h>
#include <string.h>

#include "decoders.h"

static const uint8_t png_signature[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};
static const uint8_t jpeg_signature[3] = {0xFF, 0xD8, 0xFF};

// Bytes looked at to tell formats apart: enough for an ftyp box with a few compatible brands
// (phones write 24-40 bytes of ftyp; a HEIF brand after byte 64 is not looked for).
#define SNIFF_BYTES 64

struct gps_reader {
    gps_stream stream;
    gps_sample_table table;
    gps_warnings warnings;
    int format;
    struct gps_png_decoder *png;
    struct gps_jpeg_decoder *jpeg;
    struct gps_heic_decoder *heic;
    struct gps_webp_decoder *webp;
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

// "RIFF", a 4-byte size, "WEBP".
static int is_webp(const uint8_t *b, size_t n) {
    return n >= 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0;
}

// An ISO-BMFF file starting with an ftyp box (size, "ftyp", major brand, minor version,
// compatible brands) whose major or any compatible brand is a HEIF image brand libheif 1.15
// decodes: GPS_FORMAT_AVIF for an AV1 brand, else GPS_FORMAT_HEIC; 0 for anything else (MP4,
// MOV, JPEG 2000, ...). Brands of codecs libheif 1.15 lacks (vvic, evbi, jpeg) are not listed.
static int heif_format(const uint8_t *b, size_t n) {
    if (n < 12 || memcmp(b + 4, "ftyp", 4) != 0) return 0;
    static const char hevc[][5] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"};
    static const char av1[][5] = {"avif", "avis"};
    size_t box = (size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3];
    if (box < 16 || box > n) box = n;  // look at what we have; libheif checks the box itself
    int format = 0;
    for (size_t at = 8; at + 4 <= box; at += at == 8 ? 8 : 4) {  // skip the minor version
        for (size_t i = 0; i < sizeof av1 / sizeof av1[0]; i++) {
            if (memcmp(b + at, av1[i], 4) == 0) return GPS_FORMAT_AVIF;
        }
        for (size_t i = 0; i < sizeof hevc / sizeof hevc[0]; i++) {
            if (memcmp(b + at, hevc[i], 4) == 0) format = GPS_FORMAT_HEIC;
        }
    }
    return format;
}

int gps_sniff_format(const uint8_t *bytes, size_t count) {
    if (count >= sizeof png_signature && memcmp(bytes, png_signature, sizeof png_signature) == 0) return GPS_FORMAT_PNG;
    if (count >= sizeof jpeg_signature && memcmp(bytes, jpeg_signature, sizeof jpeg_signature) == 0) return GPS_FORMAT_JPEG;
    int heif = heif_format(bytes, count);
    if (heif != 0) return heif;
    if (is_webp(bytes, count)) return GPS_FORMAT_WEBP;
    return 0;
}

int gps_reader_read_header(gps_reader *reader, gps_image_header *header, gps_decode_error *error) {
    memset(header, 0, sizeof *header);
    memset(error, 0, sizeof *error);
    size_t available = gps_stream_peek(&reader->stream, SNIFF_BYTES);
    if (available == 0) {
        if (reader->stream.read_errno != 0) return checked(reader, GPS_ERR_READ, error);
        return GPS_ERR_NO_DATA;
    }
    reader->format = gps_sniff_format(reader->stream.next, available);
    header->format = reader->format;
    switch (reader->format) {
    case GPS_FORMAT_PNG:
        reader->png = gps_png_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->png == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_png_read_header(reader->png, header, error), error);
    case GPS_FORMAT_JPEG:
        reader->jpeg = gps_jpeg_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->jpeg == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_jpeg_read_header(reader->jpeg, header, error), error);
    case GPS_FORMAT_HEIC:
    case GPS_FORMAT_AVIF:
        reader->heic = gps_heic_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->heic == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_heic_read_header(reader->heic, header, error), error);
    case GPS_FORMAT_WEBP:
        reader->webp = gps_webp_create(&reader->stream, &reader->table, &reader->warnings);
        if (reader->webp == NULL) return GPS_ERR_NO_MEMORY;
        return checked(reader, gps_webp_read_header(reader->webp, header, error), error);
    default:
        break;
    }
    return checked(reader, GPS_ERR_NOT_IMAGE, error);
}

int gps_reader_read_pixels(gps_reader *reader, float *rgb, float *alpha, gps_decode_error *error) {
    memset(error, 0, sizeof *error);
    switch (reader->format) {
    case GPS_FORMAT_PNG: return checked(reader, gps_png_read_pixels(reader->png, rgb, alpha, error), error);
    case GPS_FORMAT_JPEG: return checked(reader, gps_jpeg_read_pixels(reader->jpeg, rgb, alpha, error), error);
    case GPS_FORMAT_HEIC:
    case GPS_FORMAT_AVIF: return checked(reader, gps_heic_read_pixels(reader->heic, rgb, alpha, error), error);
    case GPS_FORMAT_WEBP: return checked(reader, gps_webp_read_pixels(reader->webp, rgb, alpha, error), error);
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
    gps_heic_destroy(reader->heic);
    gps_webp_destroy(reader->webp);
    gps_stream_release(&reader->stream);
    free(reader);
}
