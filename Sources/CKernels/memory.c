// Large buffers on huge pages. A 1x1 convolution reads one row from each of up to 960 channel
// planes per tile, and a plane of 112x112 or 56x56 floats is 12-49 KB: every row is on another
// 4 KB page, so each tile missed the first-level TLB once per input channel. With 2 MB pages
// the whole tensor is a few TLB entries. One thread, warm caches, medians of 5 alternating
// runs (4 KB -> 2 MB pages): 16->96 at 112x112 460 -> 348 us, 192->32 at 28x28 100 -> 67 us,
// 960->320 at 7x7 263 -> 220 us, 24->144 at 56x56 185 -> 165 us.
#include "gs_memory.h"
#include <pthread.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void *gs_allocate_large(size_t bytes) {
    if (bytes < GS_HUGE_PAGE_BYTES) return malloc(bytes ? bytes : 1);
    // Whole huge pages: the kernel backs only aligned 2 MB ranges with them.
    const size_t rounded = (bytes + GS_HUGE_PAGE_BYTES - 1) / GS_HUGE_PAGE_BYTES * GS_HUGE_PAGE_BYTES;
    void *p = NULL;
    if (posix_memalign(&p, GS_HUGE_PAGE_BYTES, rounded) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: with transparent huge pages off, the buffer is ordinary memory.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

// One scratch buffer per thread, kept between calls: the fused convolution's band buffer (up to
// 1.5 MB) is needed once per chunk of rows, 8 chunks per layer; kept, its pages stay mapped (and
// often cached) from one chunk and layer to the next instead of a malloc and free of each.
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static _Thread_local void *scratch;
static _Thread_local size_t scratch_bytes;

static void scratch_key_create(void) { (void)pthread_key_create(&scratch_key, free); }

void *gs_thread_scratch(size_t bytes) {
    if (bytes <= scratch_bytes) return scratch;
    pthread_once(&scratch_once, scratch_key_create);
    free(scratch);
    scratch = NULL;
    scratch_bytes = 0;
    void *fresh = NULL;
    if (posix_memalign(&fresh, 64, bytes) != 0) fresh = NULL;
    (void)pthread_setspecific(scratch_key, fresh);  // freed when the thread exits
    if (!fresh) return NULL;
    scratch = fresh;
    scratch_bytes = bytes;
    return scratch;
}
