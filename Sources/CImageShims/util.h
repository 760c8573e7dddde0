#ifndef GPS_UTIL_H
#define GPS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Copies a library message into the caller's buffer (always NUL-terminated).
static inline void gps_set_message(char *message, size_t size, const char *text) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s", text);
}

// Problems that do not touch the pixels (a broken ancillary PNG chunk, an unreadable ICC
// profile): decoding goes on; the first text is kept for --verbose, the rest only counted.
typedef struct gps_warnings {
    char first[200];
    int count;
} gps_warnings;

static inline void gps_warn(gps_warnings *warnings, const char *text) {
    if (warnings == NULL) return;
    if (warnings->count++ == 0) gps_set_message(warnings->first, sizeof warnings->first, text);
}

// The caller's buffer for a library's error text, and where its warnings go (NULL: dropped).
typedef struct {
    char *text;
    size_t size;
    gps_warnings *warnings;
} gps_message_buffer;

#endif
