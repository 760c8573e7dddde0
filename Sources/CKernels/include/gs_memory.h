#ifndef GPUSTYLE_MEMORY_H
#define GPUSTYLE_MEMORY_H
#include <stddef.h>

/// Memory for a large working buffer (a plan's tensors): aligned to 2 MiB and, on Linux, marked
/// for transparent huge pages. Free with free(). NULL when the system refuses.
void *gs_allocate_large(size_t bytes);

/// A 64-byte aligned buffer of at least `bytes` private to the calling thread and kept for its
/// next call (grown, never shrunk, freed when the thread exits); its contents are whatever the
/// thread's last user left. One user at a time per thread. NULL when the system refuses.
void *gs_thread_scratch(size_t bytes);

/// Buffers of at least this many bytes get huge pages.
#define GS_HUGE_PAGE_BYTES ((size_t)2 << 20)
#endif
