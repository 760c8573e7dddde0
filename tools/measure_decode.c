// Decodes one image file with CImageShims the way ImageReader does (header, then the float
// planes, then the pixels) and prints the size, the time of each phase and the peak RSS, to
// measure what a decoder needs beyond the planes (12 bytes a pixel, 16 with alpha).
//
// Build and run (from the repository root, bash):
//   S=Sources/CImageShims
//   cc -O2 -o /tmp/measure_decode -I $S/include -I $S tools/measure_decode.c
//      $S/{reader,stream,rows,util,png_decode,jpeg_decode,heic_decode,webp_decode,quiet_stderr}.c
//      -lpng16 -ljpeg -lheif -lwebp -lwebpdemux          (one command line)
//   /usr/bin/time -v /tmp/measure_decode photo.heic

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cimageshims.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double peak_mb(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: measure_decode FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    gps_reader *reader = gps_reader_create(fd, NULL, 0);
    gps_image_header header;
    gps_decode_error error;
    double start = now();
    int status = gps_reader_read_header(reader, &header, &error);
    double header_done = now();
    if (status != GPS_OK) {
        printf("header: status %d: %s\n", status, error.message);
        return 1;
    }
    printf("format %d, %ux%u, alpha %d, %u bits, icc %zu bytes, exif %zu bytes; header %.3f s, peak %.0f MB\n",
           header.format, header.width, header.height, header.has_alpha, header.bit_depth, header.icc_size,
           header.exif_size, header_done - start, peak_mb());
    size_t count = (size_t)header.width * header.height;
    float *rgb = malloc(3 * count * sizeof(float));
    float *alpha = header.has_alpha ? malloc(count * sizeof(float)) : NULL;
    if (rgb == NULL || (header.has_alpha && alpha == NULL)) return 1;
    status = gps_reader_read_pixels(reader, rgb, alpha, &error);
    double pixels_done = now();
    if (status != GPS_OK) {
        printf("pixels: status %d: %s\n", status, error.message);
        return 1;
    }
    double planes = (double)count * (header.has_alpha ? 16 : 12) / 1048576.0;
    printf("pixels %.2f s; peak RSS %.0f MB (planes %.0f MB, so %.0f MB for the decoder and file)\n",
           pixels_done - header_done, peak_mb(), planes, peak_mb() - planes);
    gps_reader_destroy(reader);
    free(rgb);
    free(alpha);
    close(fd);
    return 0;
}
