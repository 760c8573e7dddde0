#ifndef GPUSTYLE_PARALLEL_FOR_H
#define GPUSTYLE_PARALLEL_FOR_H
#include <stdint.h>

/// One chunk of a job: items [begin, end) of 0..<count.
typedef void (*gs_parallel_body)(void *context, int64_t begin, int64_t end);

/// Runs body on `chunks` disjoint, contiguous ranges that cover [0, count) (chunk i is
/// [count*i/chunks, count*(i+1)/chunks); empty ranges are skipped), on the calling thread and at
/// most `threads - 1` of the warm pool's workers, which claim chunks one at a time, and returns 1
/// when every chunk has run. With one chunk or one thread (or no pool: one processor) the whole
/// range runs on the calling thread. Returns 0 at once, having run nothing, when another call
/// holds the pool (a concurrent caller, or a body that calls this again): no call waits for
/// another; the caller runs the job some other way. chunks is clamped to [1, 4095]; threads to
/// [1, the pool's size + 1].
int gs_parallel_run(int64_t count, int chunks, int threads, gs_parallel_body body, void *context);

/// Processors this process may run on (its CPU affinity, as `taskset` or a container sets it;
/// else the online count).
int gs_processor_count(void);

/// Workers in the pool (started on the first call that uses them): gs_processor_count() - 1.
int gs_parallel_pool_size(void);

/// How long a worker spins for the next job before it sleeps, in nanoseconds (default in
/// parallel_for.c); for measurements. Returns the previous value.
int64_t gs_parallel_set_spin_ns(int64_t nanoseconds);

/// Calls since the process started that returned 0 because the pool was held by another call
/// (for tests and measurements).
int64_t gs_parallel_pool_held_count(void);
#endif
