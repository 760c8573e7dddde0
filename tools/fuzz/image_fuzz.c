// libFuzzer target for the image reader (Sources/CImageShims): the same steps ImageReader.swift
// takes (header, limit check, planes, pixels), on bytes in memory. It is format-agnostic: the
// reader sniffs the signature, so one harness serves every decoder behind gps_reader, and the
// per-format targets (tools/fuzz/run.sh) differ only in seed corpus and dictionary.
//
// Build: tools/fuzz/run.sh png|jpeg|heic|webp (clang -fsanitize=fuzzer,address,undefined).

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cimageshims.h"

// The largest image decoded, as `--max-pixels 1048576` would allow: a 20-byte header can claim
// 60000x60000, and a fuzzer that allocates gigabytes per input explores nothing (and trips the
// RSS limit). 1 MP keeps the planes of any input cheap; the reader's size arithmetic (64-bit
// size_t) has no threshold between 1 MP and the library's 100 MP default. The reader only ever
// sees sizes the caller accepted, as in the library.
#ifndef GPS_FUZZ_MAX_PIXELS
#define GPS_FUZZ_MAX_PIXELS (1u << 20)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // ImageReader.decode(bytes:) refuses empty input before creating a reader; do the same.
    if (size == 0) return 0;
    gps_reader *reader = gps_reader_create(-1, data, size);
    if (reader == NULL) return 0;
    gps_image_header header;
    gps_decode_error error;
    if (gps_reader_read_header(reader, &header, &error) == GPS_OK) {
        uint64_t pixels = (uint64_t)header.width * header.height;
        uint64_t coded = (uint64_t)header.coded_width * header.coded_height;
        if (pixels > 0 && pixels <= GPS_FUZZ_MAX_PIXELS && coded <= GPS_FUZZ_MAX_PIXELS) {
            // malloc, not calloc: the decoder must write every element, and the planes are left
            // uninitialised in the library too (ImageReader.swift).
            float *rgb = malloc((size_t)pixels * 3 * sizeof(float));
            float *alpha = header.has_alpha ? malloc((size_t)pixels * sizeof(float)) : NULL;
            if (rgb != NULL && (alpha != NULL || !header.has_alpha)) {
                (void)gps_reader_read_pixels(reader, rgb, alpha, &error);
            }
            free(alpha);
            free(rgb);
        }
        // The EXIF block (JPEG) is handed to Swift's parser in the library; read it all here so
        // ASan sees any exif/exif_size that points outside the reader's memory.
        if (header.exif != NULL) {
            volatile uint8_t sum = 0;
            for (size_t i = 0; i < header.exif_size; i++) sum = (uint8_t)(sum + header.exif[i]);
            (void)sum;
        }
    }
    gps_reader_destroy(reader);
    return 0;
}
