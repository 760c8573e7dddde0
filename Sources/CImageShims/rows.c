#include "rows.h"

#include <stddef.h>

void gps_sample_table_init(gps_sample_table *table) {
    for (int v = 0; v < 256; v++) table->value[v] = (float)v / 255.0f;
}

void gps_row_to_planes(const uint8_t *row, uint32_t width, uint32_t channels, uint32_t bit_depth,
                       const gps_sample_table *table, gps_row_target target) {
    uint32_t color = (channels == 2 || channels == 4) ? channels - 1 : channels;
    // Channel index feeding green and blue: the gray sample for gray images.
    uint32_t g = color == 1 ? 0 : 1, b = color == 1 ? 0 : 2, a = channels - 1;
    int alpha = target.alpha != NULL && color != channels;
    if (bit_depth == 16) {
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * channels * 2;
            target.red[x] = (float)(p[0] << 8 | p[1]) / 65535.0f;
            target.green[x] = (float)(p[2 * g] << 8 | p[2 * g + 1]) / 65535.0f;
            target.blue[x] = (float)(p[2 * b] << 8 | p[2 * b + 1]) / 65535.0f;
            if (alpha) target.alpha[x] = (float)(p[2 * a] << 8 | p[2 * a + 1]) / 65535.0f;
        }
        return;
    }
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *p = row + (size_t)x * channels;
        target.red[x] = table->value[p[0]];
        target.green[x] = table->value[p[g]];
        target.blue[x] = table->value[p[b]];
        if (alpha) target.alpha[x] = table->value[p[a]];
    }
}
