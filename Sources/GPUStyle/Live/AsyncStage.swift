import CKernels
import Foundation

/// A pipeline stage that runs on its own thread with at most one job in flight.
///
/// `submit` hands a job over only when the stage is idle and reports a skip otherwise: work that
/// arrives while the stage is busy is dropped, never queued, so the stage's output can lag the
/// video by at most one job (the rule of Apple's "Using Vision in Real Time with ARKit": one
/// request in flight per stage). The newest result waits in a one-slot mailbox for `take`.
///
/// The stage's thread runs at a lower scheduling priority (nice 10) and its kernels on at most
/// `workerLimit` threads: on a 2-core machine the frame loop must keep a core, or the output
/// falls behind the input while the network runs.
public final class AsyncStage<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    public let name: String
    private let work: @Sendable (Job) -> Output
    private let workerLimit: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var pending: Job?
    private var busy = false
    private var stopped = false
    private var result: Output?
    private var latencies: [Double] = []
    private var skipped = 0
    private var completed = 0

    public init(name: String, workerLimit: Int = 1, work: @escaping @Sendable (Job) -> Output) {
        self.name = name
        self.work = work
        self.workerLimit = workerLimit
        let thread = Thread { [self] in run() }
        thread.name = "gpustyle.live.\(name)"
        thread.start()
    }

    private func run() {
        // Lowers only this thread; if refused, the stage just competes on equal terms.
        _ = gs_set_thread_nice(10)
        while true {
            condition.lock()
            while pending == nil && !stopped { condition.wait() }
            guard let job = pending else { condition.unlock(); return }
            pending = nil
            condition.unlock()
            let start = MonotonicClock.seconds()
            let output = ParallelFor.$workerLimit.withValue(workerLimit) { work(job) }
            let elapsed = MonotonicClock.seconds() - start
            condition.withLock {
                result = output
                latencies.append(elapsed)
                completed += 1
                busy = false
                condition.broadcast()
            }
        }
    }

    /// Starts `job` if the stage is idle; false (counted as a skip) when it is busy.
    @discardableResult
    public func submit(_ job: Job) -> Bool {
        condition.withLock {
            guard !busy, !stopped else { skipped += 1; return false }
            busy = true
            pending = job
            condition.broadcast()
            return true
        }
    }

    /// Waits until the job in flight, if any, has finished (lockstep runs).
    public func waitUntilIdle() {
        condition.withLock { while busy { condition.wait() } }
    }

    /// Waits at most `timeout` seconds for the job in flight; whether the stage is idle.
    @discardableResult
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while busy { if !condition.wait(until: deadline) { break } }
            return !busy
        }
    }

    /// The newest finished result, once.
    public func take() -> Output? {
        condition.withLock {
            defer { result = nil }
            return result
        }
    }

    /// Waits for the job in flight, if any, and ends the thread (at shutdown).
    public func drain() {
        condition.withLock {
            while busy { condition.wait() }
            stopped = true
            condition.broadcast()
        }
    }

    /// Skips, completed jobs and job latencies (seconds) since the last call.
    public func harvest() -> (skipped: Int, completed: Int, latencies: [Double]) {
        condition.withLock {
            defer { skipped = 0; completed = 0; latencies = [] }
            return (skipped, completed, latencies)
        }
    }
}

/// A stage's failure (a GPU that died with no fallback, a model that failed), reported by the
/// frame loop of `LivePipeline`, `LiveClassification`, `LiveDigits`, `LiveFaces` and `LiveText`
/// on the next frame, prefixed with the stage's name.
public struct LiveStageError: Error, CustomStringConvertible {
    public let description: String
}
