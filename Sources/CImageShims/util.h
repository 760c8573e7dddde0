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

// The caller's buffer for a library's error text.
typedef struct {
    char *text;
    size_t size;
} gps_message_buffer;

#endif
