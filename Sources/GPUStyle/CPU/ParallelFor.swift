import CKernels
import Dispatch
import Foundation

/// Splits `0..<count` into contiguous ranges and runs them on the calling thread and a pool of
/// warm worker threads (Sources/CKernels/parallel_for.c).
///
/// Why a pool of our own: MobileNetV2 classification was 65 plan steps of 10-300 µs at 224² (22
/// since its inverted residual blocks are one step each).
/// With `DispatchQueue.concurrentPerform` the workers went to sleep between steps, and waking
/// them cost more than the short steps gained (one thread 9.6-10.5 ms, two 7.6-9.0 ms,
/// onnxruntime 6.2-6.7 ms). The pool's workers spin for a bounded time (50 µs, yielding after
/// the first 2 µs) after each job before they sleep, and claim chunks from an atomic counter
/// while the caller works on its share; an idle process spins for at most those 50 µs.
///
/// Measured on the 2-core development machine (ParallelForTimingTests, GPUSTYLE_PARALLEL_TIMING=1,
/// medians of 7 rounds of 200 back-to-back jobs, 8 runs; the machine was shared, load 4-6):
/// - a job of about 100 µs on one thread: pool / concurrentPerform 0.58-1.70, median 0.86
///   (62 vs 108 µs at the quietest; slower in 2 of 8 runs, when the other core was busy).
/// - the spin pays: pool / the same pool with workers that sleep right after each job, median
///   of 7 runs 0.77 for 20 µs jobs, 0.82 for 100 µs, 0.94 for 300 µs.
/// - classify end to end (`gpustyle bench --classify`, the binary before this pool and after,
///   alternating processes, 15-20 rounds, three runs at load 4-6): after/before 1.03-1.06
///   (median of per-round ratios); the gain above does not show while other sessions keep both
///   cores busy. The style network: 0.96 at 512², 0.99 at 1080p. At load 1.3, 15 rounds:
///   classify 9.8 ms after, 10.2 before (0.96), onnxruntime 5.6 ms; `gpustyle profile --network
///   classify` puts 91-97 % of the wall time inside the steps with either binary, so the rest of
///   the gap to onnxruntime is in the kernels (the 1×1 convolutions are 70 % of it).
/// - two callers at once: when the second ran inline while the first held the pool, its jobs of
///   100-300 µs took 1.4-3.2× as long as with concurrentPerform for both (four threads get more
///   of a busy machine than three), hence the fallback to concurrentPerform; with it, 0.64-1.01
///   for those jobs, but 1.5-1.7 for 20 µs jobs (2 runs). The live pipeline's stages run with
///   workerLimit 1 and never ask for the pool.
enum ParallelFor {
    /// The processors this process may run on: Foundation's activeProcessorCount ignores the CPU
    /// affinity (`taskset -c 0` still counted 2 here, and the kernels split work for 2 threads
    /// that one processor ran in turn).
    static let workers = max(1, Int(gs_processor_count()))

    /// At most this many workers for the kernels run inside `withValue` (the live pipeline runs
    /// the network and the detector on one thread each, so that they leave the frame loop a core).
    @TaskLocal static var workerLimit = Int.max

    /// Runs `body` on disjoint ranges that cover `0..<count`. With `grain` > 1 a range holds at
    /// least that many items (small jobs stay on one thread). Callable from several threads at
    /// once: a call made while another holds the pool (or from inside a body) splits its work
    /// with DispatchQueue.concurrentPerform instead, as ranges did before the pool.
    static func ranges(_ count: Int, grain: Int = 1, _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        // A few chunks per worker balance uneven rows without much scheduling overhead.
        let workers = min(Self.workers, workerLimit)
        let chunks = min(count / max(grain, 1), workers * 4)
        if chunks <= 1 || workers == 1 {
            body(0..<count)
            return
        }
        // The pool hands the C side a context pointer to the caller's non-escaping body; it runs
        // the body only before gs_parallel_run returns.
        let ran = withoutActuallyEscaping(body) { body in
            var job = Job(body: body)
            return withUnsafeMutablePointer(to: &job) { job in
                gs_parallel_run(Int64(count), Int32(chunks), Int32(clamping: workers), { context, begin, end in
                    context!.assumingMemoryBound(to: Job.self).pointee.body(Int(begin)..<Int(end))
                }, job)
            }
        }
        if ran == 0 { dispatch(count, chunks, body) }
    }

    /// What ranges did before the pool, now for calls made while another call holds the pool
    /// (and ParallelForTimingTests' reference).
    static func dispatch(_ count: Int, _ chunks: Int, _ body: (Range<Int>) -> Void) {
        // Dispatch wants a Sendable closure, which the caller's non-escaping body cannot be,
        // hence the unchecked box; the kernels hand it raw pointers to disjoint ranges.
        withoutActuallyEscaping(body) { body in
            let box = UncheckedSendable(value: body)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let begin = count * chunk / chunks
                let end = count * (chunk + 1) / chunks
                if begin < end { box.value(begin..<end) }
            }
        }
    }

    /// The caller's body, reached from the pool's threads through a raw pointer.
    private struct Job {
        let body: (Range<Int>) -> Void
    }
}

struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}
