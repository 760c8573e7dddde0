import CKernels
import Foundation

/// Splits `0..<count` into contiguous ranges and runs them on the calling thread and a pool of
/// warm worker threads (Sources/CKernels/parallel_for.c).
///
/// Why a pool of our own: MobileNetV2 classification is 65 plan steps of 10-300 µs at 224².
/// With `DispatchQueue.concurrentPerform` the workers went to sleep between steps, and waking
/// them cost more than the short steps gained (one thread 9.6-10.5 ms, two 7.6-9.0 ms,
/// onnxruntime 6.2-6.7 ms). The pool's workers spin for a bounded time (50 µs) after each job
/// before they sleep, and claim chunks from an atomic counter while the caller works on its share.
/// MEASUREMENTS
enum ParallelFor {
    static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// At most this many workers for the kernels run inside `withValue` (the live pipeline runs
    /// the network and the detector on one thread each, so that they leave the frame loop a core).
    @TaskLocal static var workerLimit = Int.max

    /// Runs `body` on disjoint ranges that cover `0..<count`. With `grain` > 1 a range holds at
    /// least that many items (small jobs stay on one thread). Callable from several threads at
    /// once: a call made while another holds the pool (or from inside a body) runs its whole
    /// range on the calling thread.
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
        withoutActuallyEscaping(body) { body in
            var job = Job(body: body)
            withUnsafeMutablePointer(to: &job) { job in
                gs_parallel_run(Int64(count), Int32(chunks), Int32(clamping: workers), { context, begin, end in
                    context!.assumingMemoryBound(to: Job.self).pointee.body(Int(begin)..<Int(end))
                }, job)
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
