#ifndef GS_CACHE_H
#define GS_CACHE_H
#include <stdint.h>

/// Bytes of one core's level-2 data cache as the system reports it, or 0 when it does not say.
/// Kernels that hold a working set in L2 (the inverted residual's row strips) size it from this.
int64_t gs_level2_cache_bytes(void);

#endif
