#include "stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gps_stream_init(gps_stream *stream, int fd, const void *bytes, size_t size) {
    memset(stream, 0, sizeof *stream);
    if (bytes != NULL) {
        stream->fd = -1;
        stream->next = bytes;
        stream->available = size;
        return 0;
    }
    stream->fd = fd;
    stream->buffer = malloc(GPS_STREAM_CHUNK);
    stream->next = stream->buffer;
    return stream->buffer == NULL ? -1 : 0;
}

void gps_stream_release(gps_stream *stream) {
    free(stream->buffer);
    stream->buffer = NULL;
}

// Appends what one read(2) returns after the bytes still in the window (moved to the front).
static size_t read_more(gps_stream *stream) {
    if (stream->fd < 0 || stream->read_errno != 0) return 0;
    if (stream->available > 0 && stream->next != stream->buffer) memmove(stream->buffer, stream->next, stream->available);
    stream->next = stream->buffer;
    for (;;) {
        ssize_t n = read(stream->fd, stream->buffer + stream->available, GPS_STREAM_CHUNK - stream->available);
        if (n >= 0) {
            stream->available += (size_t)n;
            return (size_t)n;
        }
        if (errno != EINTR) {
            stream->read_errno = errno;
            return 0;
        }
    }
}

size_t gps_stream_fill(gps_stream *stream) {
    if (stream->available == 0) read_more(stream);
    return stream->available;
}

size_t gps_stream_peek(gps_stream *stream, size_t count) {
    if (count > GPS_STREAM_CHUNK) count = GPS_STREAM_CHUNK;
    while (stream->available < count && read_more(stream) > 0) {
    }
    return stream->available;
}

size_t gps_stream_read(gps_stream *stream, void *destination, size_t count) {
    uint8_t *out = destination;
    size_t done = 0;
    while (done < count && gps_stream_fill(stream) > 0) {
        size_t n = stream->available < count - done ? stream->available : count - done;
        memcpy(out + done, stream->next, n);
        stream->next += n;
        stream->available -= n;
        done += n;
    }
    return done;
}
