#include "stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int gps_stream_read_all(gps_stream *stream, const uint8_t **data, size_t *size, uint8_t **owned) {
    *owned = NULL;
    if (stream->fd < 0) {
        *data = stream->next;
        *size = stream->available;
        return 0;
    }
    // A regular file's size sizes the block exactly (one byte more, so the end is seen
    // without growing); pipes start at 1 MiB and double.
    size_t capacity = (size_t)1 << 20;
    struct stat info;
    off_t position = lseek(stream->fd, 0, SEEK_CUR);
    if (fstat(stream->fd, &info) == 0 && S_ISREG(info.st_mode) && position >= 0 && info.st_size >= position) {
        uint64_t rest = (uint64_t)(info.st_size - position) + stream->available + 1;
        if (rest > (uint64_t)GPS_WHOLE_INPUT_LIMIT + 1) return -3;
        capacity = (size_t)rest;
    }
    if (capacity < stream->available + 1) capacity = stream->available + 1;
    uint8_t *block = malloc(capacity);
    if (block == NULL) return -2;
    size_t used = stream->available;
    memcpy(block, stream->next, used);
    stream->next += used;
    stream->available = 0;
    for (;;) {
        if (used == capacity) {
            if (capacity > (size_t)GPS_WHOLE_INPUT_LIMIT) {
                free(block);
                return -3;
            }
            uint8_t *bigger = realloc(block, capacity * 2);
            if (bigger == NULL) {
                free(block);
                return -2;
            }
            block = bigger;
            capacity *= 2;
        }
        ssize_t n = read(stream->fd, block + used, capacity - used);
        if (n > 0) {
            used += (size_t)n;
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            stream->read_errno = errno;
            free(block);
            return -1;
        }
    }
    if (used > (size_t)GPS_WHOLE_INPUT_LIMIT) {
        free(block);
        return -3;
    }
    *data = block;
    *size = used;
    *owned = block;
    return 0;
}
