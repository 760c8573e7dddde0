// WebP decoding with libwebp (and its demuxer for the ICCP and EXIF chunks) over the whole file
// in memory, straight into the float planes' own memory.
//
// Header phase: the demuxer walks the RIFF chunks of the in-memory file (no pixel is decoded):
// canvas size, the first frame's bitstream, and pointers to the ICCP and EXIF payloads inside
// the file. An animated WebP is decoded as its first frame when that frame covers the whole
// canvas (a first frame is drawn on an empty canvas, so it is the picture shown first);
// otherwise it is refused as unsupported.
//
// Pixel phase: libwebp writes RGB or RGBA bytes into the last 3 or 4 bytes a pixel of the
// caller's rgb planes (12 bytes a pixel), which are then turned into floats in place, pixel
// by pixel from the first: no 8-bit copy of the image exists next to the planes. Lossy files
// need only libwebp's few macroblock rows besides. Lossless files need libwebp's own ARGB
// image (4 bytes a pixel: backward references reach anywhere above), but it is freed before
// the conversion touches the first two thirds of the planes, so it never adds to their peak.
//
// Measured (tools/measure_decode.c, /usr/bin/time -v; 2 shared cores), 8000x6000 (48 MP):
//   lossy, quality 85, 4.6 MB:       0.93-0.98 s, peak RSS 560 MiB = planes 549 MiB + 10 MiB
//   lossless, 41.6 MB:               1.51 s,      peak RSS 595 MiB = planes 549 MiB + 46 MiB
// (the lossless peak is the planes plus the file; during the decode it is file + ARGB +
// the RGB bytes = 376 MiB).

#include <webp/decode.h>
#include <webp/demux.h>

#include "color.h"
#include "decoders.h"
#include "util.h"

struct gps_webp_decoder {
    gps_stream *stream;
    const gps_sample_table *table;
    uint8_t *file;             // the whole input when read from a descriptor (else NULL)
    const uint8_t *bitstream;  // the first frame's chunks (ALPH + VP8, or VP8L), inside the file
    size_t bitstream_size;
    uint32_t width, height;
    int has_alpha;
    gps_color *color;  // NULL: the samples are sRGB already
    gps_warnings *warnings;
};

struct gps_webp_decoder *gps_webp_create(gps_stream *stream, const gps_sample_table *table, gps_warnings *warnings) {
    struct gps_webp_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->stream = stream;
    d->table = table;
    d->warnings = warnings;
    return d;
}

static int failure(VP8StatusCode code, gps_decode_error *error) {
    const char *text = "decoder failed";
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return GPS_ERR_NO_MEMORY;
    case VP8_STATUS_NOT_ENOUGH_DATA: text = "file is truncated"; break;
    case VP8_STATUS_BITSTREAM_ERROR: text = "invalid bitstream"; break;
    case VP8_STATUS_UNSUPPORTED_FEATURE: text = "unsupported feature"; break;
    case VP8_STATUS_INVALID_PARAM: text = "invalid parameter"; break;
    default: break;
    }
    gps_set_message(error->message, sizeof error->message, text);
    return code == VP8_STATUS_UNSUPPORTED_FEATURE ? GPS_ERR_UNSUPPORTED : GPS_ERR_CORRUPT;
}

static int corrupt(gps_decode_error *error, const char *text) {
    gps_set_message(error->message, sizeof error->message, text);
    return GPS_ERR_CORRUPT;
}

// The first chunk `fourcc`'s payload, pointing into the file (the demuxer does not copy).
static const uint8_t *find_chunk(const WebPDemuxer *demux, const char *fourcc, size_t *size) {
    WebPChunkIterator chunk;
    const uint8_t *bytes = NULL;
    *size = 0;
    if (WebPDemuxGetChunk(demux, fourcc, 1, &chunk) && chunk.chunk.size > 0) {
        bytes = chunk.chunk.bytes;
        *size = chunk.chunk.size;
    }
    WebPDemuxReleaseChunkIterator(&chunk);
    return bytes;
}

// Canvas, first frame and metadata chunks from the demuxer. All pointers stay inside `data`.
static int parse(struct gps_webp_decoder *d, const WebPDemuxer *demux, gps_image_header *header, gps_decode_error *error) {
    header->width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    header->height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    if (header->width == 0 || header->height == 0) return GPS_ERR_EMPTY;

    WebPIterator frame;
    if (!WebPDemuxGetFrame(demux, 1, &frame)) return corrupt(error, "no image in the file");
    int covers = frame.x_offset == 0 && frame.y_offset == 0 && (uint32_t)frame.width == header->width &&
                 (uint32_t)frame.height == header->height;
    int complete = frame.complete;
    d->bitstream = frame.fragment.bytes;
    d->bitstream_size = frame.fragment.size;
    WebPDemuxReleaseIterator(&frame);
    if (!complete) return corrupt(error, "file is truncated");
    if (!covers) {
        gps_set_message(error->message, sizeof error->message,
                        "animated WebP whose first frame does not cover the canvas");
        return GPS_ERR_UNSUPPORTED;
    }

    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(d->bitstream, d->bitstream_size, &features);
    if (code != VP8_STATUS_OK) return failure(code, error);
    if ((uint32_t)features.width != header->width || (uint32_t)features.height != header->height) {
        return corrupt(error, "image size differs from the canvas size");
    }
    d->width = header->width;
    d->height = header->height;
    d->has_alpha = features.has_alpha != 0;
    header->has_alpha = d->has_alpha;
    header->bit_depth = 8;

    header->icc = find_chunk(demux, "ICCP", &header->icc_size);
    size_t exif_size = 0;
    const uint8_t *exif = find_chunk(demux, "EXIF", &exif_size);
    // The chunk holds TIFF data; some writers keep JPEG's "Exif\0\0" in front of it.
    if (exif != NULL && exif_size >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
        exif += 6;
        exif_size -= 6;
    }
    if (exif_size > 0) {
        header->exif = exif;
        header->exif_size = exif_size;
    }
    return GPS_OK;
}

int gps_webp_read_header(struct gps_webp_decoder *d, gps_image_header *header, gps_decode_error *error) {
    const uint8_t *data = NULL;
    size_t size = 0;
    int status = gps_read_whole_input(d->stream, &data, &size, &d->file);
    if (status != GPS_OK) return status;

    // Partial parsing tells a file cut short (state not DONE) from one that is not WebP inside.
    WebPData input = {data, size};
    WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
    WebPDemuxer *demux = WebPDemuxPartial(&input, &state);
    if (demux == NULL || state == WEBP_DEMUX_PARSE_ERROR) {
        WebPDemuxDelete(demux);
        if (state == WEBP_DEMUX_PARSING_HEADER) return corrupt(error, "file is truncated");
        return corrupt(error, "invalid RIFF/WebP container");
    }
    if (state != WEBP_DEMUX_DONE) {
        WebPDemuxDelete(demux);
        return corrupt(error, "file is truncated");
    }
    status = parse(d, demux, header, error);
    WebPDemuxDelete(demux);
    // header->icc points into the file, which lives until destroy.
    if (status == GPS_OK) d->color = gps_color_create(header, GPS_ROWS_RGB, d->has_alpha, 8, d->warnings);
    return status;
}

// Bytes of `channels` interleaved samples a pixel, stored at the end of the rgb planes' block,
// to floats in that same block (and the alpha plane). Pixel i's floats end at byte
// 8n + 4(i + 1) of the block, no later than where pixel i + 1's bytes start, (12 - c)n + c(i + 1)
// for c = 3 or 4 and i < n: so going up from pixel 0, every write lands on bytes already read.
static void planes_in_place(float *rgb, float *alpha, size_t count, uint32_t channels, const gps_sample_table *table) {
    const uint8_t *source = (const uint8_t *)(rgb + 3 * count) - channels * count;
    float *red = rgb, *green = rgb + count, *blue = rgb + 2 * count;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = source + channels * i;
        uint8_t r = p[0], g = p[1], b = p[2], a = channels == 4 ? p[3] : 255;
        red[i] = table->value[r];
        green[i] = table->value[g];
        blue[i] = table->value[b];
        if (alpha != NULL) alpha[i] = table->value[a];
    }
}

int gps_webp_read_pixels(struct gps_webp_decoder *d, float *rgb, float *alpha, gps_decode_error *error) {
    uint32_t channels = d->has_alpha && alpha != NULL ? 4 : 3;
    size_t count = (size_t)d->width * d->height;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return corrupt(error, "libwebp version mismatch");
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;  // RGBA: not premultiplied
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = (uint8_t *)(rgb + 3 * count) - channels * count;
    config.output.u.RGBA.stride = (int)(d->width * channels);
    config.output.u.RGBA.size = channels * count;
    VP8StatusCode code = WebPDecode(d->bitstream, d->bitstream_size, &config);
    WebPFreeDecBuffer(&config.output);  // external memory: frees nothing, but is the contract
    if (code != VP8_STATUS_OK) return failure(code, error);
    // To sRGB in place, on the bytes, before they become floats (the same samples in and out).
    gps_color_apply_in_place(d->color, config.output.u.RGBA.rgba, count);
    planes_in_place(rgb, channels == 4 ? alpha : NULL, count, channels, d->table);
    return GPS_OK;
}

void gps_webp_destroy(struct gps_webp_decoder *d) {
    if (d == NULL) return;
    gps_color_destroy(d->color);
    free(d->file);
    free(d);
}
