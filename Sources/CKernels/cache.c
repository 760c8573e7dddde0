// The cache sizes the kernels size their working sets by (see gs_cache.h).
#define _GNU_SOURCE
#include "gs_cache.h"
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

int64_t gs_level2_cache_bytes(void) {
#if defined(__APPLE__)
    int64_t bytes = 0;
    size_t size = sizeof bytes;
    return sysctlbyname("hw.l2cachesize", &bytes, &size, NULL, 0) == 0 && bytes > 0 ? bytes : 0;
#elif defined(_SC_LEVEL2_CACHE_SIZE)
    const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return bytes > 0 ? (int64_t)bytes : 0;
#else
    return 0;
#endif
}
