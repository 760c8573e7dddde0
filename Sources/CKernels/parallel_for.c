// The warm worker pool behind ParallelFor.ranges (see ParallelFor.swift for the measurements).
//
// One job at a time: the caller that wins `pool_busy` publishes its job in one 64-bit word,
//   bits 63..32 generation | 31..24 threads allowed | 23..12 chunks | 11..0 next chunk,
// and every participant (the caller and the workers) claims chunks by compare-and-swap on that
// word. A claim succeeds only while the generation is still the one the participant joined, so
// a worker that wakes late can never take a chunk of a newer job by mistake, and the job's other
// fields stay valid while any claimed chunk is unfinished (the caller returns, and the next job
// is written, only after `job_remaining` reaches 0).
//
// Waiting is bounded spinning, then blocking: a worker spins (with the processor's pause hint)
// for `spin_ns` after its last job before it sleeps on a condition variable, and the caller spins
// as long for the workers' last chunks before it sleeps too. The sleep/wake handshakes are the
// store-then-load (Dekker) pattern on seq_cst atomics: the waker stores the new state and then
// reads the sleeper count; the sleeper counts itself and then reads the state, under the mutex.
#define _GNU_SOURCE
#include "gs_parallel_for.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void cpu_pause(void) { _mm_pause(); }
#elif defined(__aarch64__)
static inline void cpu_pause(void) { __asm__ __volatile__("yield"); }
#else
static inline void cpu_pause(void) {}
#endif

enum { max_workers = 63, max_chunks = 4095 };

// 50 µs: see ParallelFor.swift for what shorter and longer spins measured.
static _Atomic int64_t spin_ns = 50000;
// Past this, spinning threads also yield (on a busy machine the thread they wait for may be
// queued behind them on the same core).
enum { yield_after_ns = 2000 };
static _Atomic int64_t pool_held_count;

static int pool_size;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;  // workers sleep here
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;  // the caller sleeps here
static _Atomic int sleeping_workers;
static _Atomic int caller_sleeping;

static _Atomic int pool_busy;
static _Atomic uint64_t job_word;
static _Atomic int64_t job_remaining;
// Written by the caller before the job word is published (release), read by participants after
// a successful claim (acquire).
static gs_parallel_body job_body;
static void *job_context;
static int64_t job_count;

static inline uint32_t word_generation(uint64_t w) { return (uint32_t)(w >> 32); }
static inline int word_threads(uint64_t w) { return (int)((w >> 24) & 0xff); }
static inline int word_chunks(uint64_t w) { return (int)((w >> 12) & 0xfff); }
static inline int word_next(uint64_t w) { return (int)(w & 0xfff); }

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/// Claims and runs chunks of job `generation` until none are left or a newer job replaced it.
static void run_chunks(uint32_t generation, bool is_worker) {
    uint64_t w = atomic_load_explicit(&job_word, memory_order_acquire);
    for (;;) {
        if (word_generation(w) != generation) return;
        int next = word_next(w), chunks = word_chunks(w);
        if (next >= chunks) return;
        if (!atomic_compare_exchange_weak_explicit(&job_word, &w, w + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        int64_t count = job_count;
        int64_t begin = count * next / chunks, end = count * (next + 1) / chunks;
        if (begin < end) job_body(job_context, begin, end);
        if (atomic_fetch_sub(&job_remaining, 1) == 1 && is_worker &&
            atomic_load(&caller_sleeping)) {
            pthread_mutex_lock(&pool_mutex);
            pthread_cond_broadcast(&done_cond);
            pthread_mutex_unlock(&pool_mutex);
        }
        w = atomic_load_explicit(&job_word, memory_order_acquire);
    }
}

/// Returns the first generation other than `seen`: spins for spin_ns, then sleeps.
static uint32_t wait_for_job(uint32_t seen) {
    int64_t limit = atomic_load_explicit(&spin_ns, memory_order_relaxed);
    int64_t start = now_ns();
    for (unsigned i = 1;; i++) {
        uint32_t g = word_generation(atomic_load_explicit(&job_word, memory_order_acquire));
        if (g != seen) return g;
        cpu_pause();
        if ((i & 63) == 0) {
            int64_t spent = now_ns() - start;
            if (spent >= limit) break;
            if (spent >= yield_after_ns) sched_yield();
        }
    }
    pthread_mutex_lock(&pool_mutex);
    atomic_fetch_add(&sleeping_workers, 1);
    uint32_t g;
    while ((g = word_generation(atomic_load(&job_word))) == seen)
        pthread_cond_wait(&work_cond, &pool_mutex);
    atomic_fetch_sub(&sleeping_workers, 1);
    pthread_mutex_unlock(&pool_mutex);
    return g;
}

static void *worker_main(void *argument) {
    int index = (int)(intptr_t)argument;  // the caller is participant 0, this worker index + 1
    uint32_t seen = 0;
    for (;;) {
        seen = wait_for_job(seen);
        uint64_t w = atomic_load_explicit(&job_word, memory_order_acquire);
        if (word_generation(w) == seen && index + 1 < word_threads(w)) run_chunks(seen, true);
    }
    return NULL;
}

int gs_processor_count(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void start_pool(void) {
    int wanted = gs_processor_count() - 1;
    if (wanted > max_workers) wanted = max_workers;
    int started = 0;
    for (int i = 0; i < wanted; i++) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, worker_main, (void *)(intptr_t)i) == 0) started++;
        pthread_attr_destroy(&attributes);
        if (started != i + 1) break;  // indices stay 0..started-1
    }
    pool_size = started;
}

int gs_parallel_pool_size(void) {
    pthread_once(&pool_once, start_pool);
    return pool_size;
}

int64_t gs_parallel_set_spin_ns(int64_t nanoseconds) {
    return atomic_exchange(&spin_ns, nanoseconds < 0 ? 0 : nanoseconds);
}

int64_t gs_parallel_pool_held_count(void) { return atomic_load(&pool_held_count); }

int gs_parallel_run(int64_t count, int chunks, int threads, gs_parallel_body body, void *context) {
    if (count <= 0) return 1;
    if (chunks > max_chunks) chunks = max_chunks;
    int size = chunks > 1 && threads > 1 ? gs_parallel_pool_size() : 0;
    if (threads > size + 1) threads = size + 1;
    if (chunks <= 1 || threads <= 1) {
        body(context, 0, count);
        return 1;
    }
    int expected = 0;
    if (!atomic_compare_exchange_strong(&pool_busy, &expected, 1)) {
        atomic_fetch_add_explicit(&pool_held_count, 1, memory_order_relaxed);
        return 0;
    }

    job_body = body;
    job_context = context;
    job_count = count;
    atomic_store_explicit(&job_remaining, chunks, memory_order_relaxed);
    uint32_t generation = word_generation(atomic_load_explicit(&job_word, memory_order_relaxed)) + 1;
    atomic_store(&job_word, (uint64_t)generation << 32 | (uint64_t)threads << 24 |
                                (uint64_t)chunks << 12);
    if (atomic_load(&sleeping_workers) > 0) {
        pthread_mutex_lock(&pool_mutex);
        pthread_cond_broadcast(&work_cond);
        pthread_mutex_unlock(&pool_mutex);
    }

    run_chunks(generation, false);

    if (atomic_load_explicit(&job_remaining, memory_order_acquire) != 0) {
        int64_t limit = atomic_load_explicit(&spin_ns, memory_order_relaxed);
        int64_t start = now_ns();
        for (unsigned i = 1; atomic_load_explicit(&job_remaining, memory_order_acquire) != 0; i++) {
            cpu_pause();
            if ((i & 63) != 0) continue;
            int64_t spent = now_ns() - start;
            if (spent >= yield_after_ns) sched_yield();
            if (spent >= limit) {
                pthread_mutex_lock(&pool_mutex);
                atomic_store(&caller_sleeping, 1);
                while (atomic_load(&job_remaining) != 0) pthread_cond_wait(&done_cond, &pool_mutex);
                atomic_store(&caller_sleeping, 0);
                pthread_mutex_unlock(&pool_mutex);
                break;
            }
        }
    }
    atomic_store_explicit(&pool_busy, 0, memory_order_release);
    return 1;
}
