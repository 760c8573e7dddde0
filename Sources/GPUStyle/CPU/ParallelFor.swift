import Dispatch
import Foundation

/// Splits `0..<count` into contiguous ranges, one batch per worker, and runs them on all cores.
enum ParallelFor {
    static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// At most this many workers for the kernels run inside `withValue` (the live pipeline runs
    /// the network and the detector on one thread each, so that they leave the frame loop a core).
    @TaskLocal static var workerLimit = Int.max

    /// Runs `body` on disjoint ranges that cover `0..<count`. With `grain` > 1 a range holds at
    /// least that many items (small jobs stay on one thread; waking workers costs microseconds).
    static func ranges(_ count: Int, grain: Int = 1, _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        // A few chunks per worker balance uneven rows without much scheduling overhead.
        let workers = min(Self.workers, workerLimit)
        let chunks = min(count / max(grain, 1), workers * 4)
        if chunks <= 1 || workers == 1 {
            body(0..<count)
            return
        }
        // The kernels hand raw pointers to disjoint ranges; Dispatch wants a Sendable closure,
        // which the caller's non-escaping body cannot be, hence the unchecked box.
        withoutActuallyEscaping(body) { body in
            let box = UncheckedSendable(value: body)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let begin = count * chunk / chunks
                let end = count * (chunk + 1) / chunks
                if begin < end { box.value(begin..<end) }
            }
        }
    }
}

struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}
