// A byte source for the decoders: a file descriptor read in 64 KiB chunks, or bytes already in
// memory (standard input, which is read whole with a cap, and ImageIO.decode(Data)). Decoding
// from the descriptor means a file is never held whole in memory: the decoders see one chunk
// at a time.
#ifndef GPS_STREAM_H
#define GPS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "cimageshims.h"

// Bytes asked of read(2) at a time: large enough that syscalls cost nothing next to decoding.
#define GPS_STREAM_CHUNK ((size_t)1 << 16)

typedef struct gps_stream {
    int fd;                  // -1 for a memory source
    uint8_t *buffer;         // GPS_STREAM_CHUNK bytes, fd sources only
    const uint8_t *next;     // the unread bytes of the current window
    size_t available;
    int read_errno;          // non-zero once read(2) failed
} gps_stream;

// Sets up a source over `fd` (bytes == NULL) or over `size` bytes at `bytes` (fd ignored).
// Returns 0, or -1 when the chunk buffer cannot be allocated.
int gps_stream_init(gps_stream *stream, int fd, const void *bytes, size_t size);
void gps_stream_release(gps_stream *stream);

// Refills an empty window. Returns the bytes now available: 0 at the end of the input or on a
// read error (read_errno then says which).
size_t gps_stream_fill(gps_stream *stream);

// Makes at least `count` (<= GPS_STREAM_CHUNK) bytes available in the window when the input
// has them, for sniffing headers. Returns the bytes available.
size_t gps_stream_peek(gps_stream *stream, size_t count);

// Copies up to `count` bytes to `destination`; fewer only at the end or on a read error.
size_t gps_stream_read(gps_stream *stream, void *destination, size_t count);

// The rest of the input as one block, for the decoders that need all of it at once (libheif
// reads boxes by offset; a WebP's EXIF chunk comes after the pixels). A memory source is
// returned in place (*owned = NULL); a descriptor is read to its end into a malloc'd block
// (*owned, the caller frees it). Returns 0, or -1 with read_errno set (read error), -2 (out of
// memory) or -3 (more than GPS_WHOLE_INPUT_LIMIT bytes, cimageshims.h).
int gps_stream_read_all(gps_stream *stream, const uint8_t **data, size_t *size, uint8_t **owned);

#endif
