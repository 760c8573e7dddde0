import Foundation

/// Reads a Y4M stream on its own thread and hands frames over through a short queue.
///
/// `.realtime` (a camera): up to `realtimeDepth` frames wait; a frame that arrives when that
/// many are waiting pushes the oldest out, which counts as dropped, so the output never falls
/// more than a few frames behind the input. The few frames of slack answer every frame through
/// the short stalls of a busy machine: with a one-frame slot, 3 of the committed clip's 300
/// frames were dropped at 640x480 on 2 cores (a frame that took over 33 ms while the stylize and
/// detect stages shared the cores), with 3 none. `.all` (a file): the reader waits for the
/// queue to empty, and every frame is processed.
public final class FrameMailbox: @unchecked Sendable {
    public enum Pace: String, Sendable, CaseIterable {
        case realtime, all
        /// `all`, and each detection finishes before the next frame (`LiveOptions.lockstep`).
        case lockstep
    }

    public enum Delivery {
        case frame(YUVFrame, index: Int)
        /// Nothing yet (the wait timed out).
        case waiting
        /// A clean end of stream.
        case end
        case failed(Error)
    }

    /// Frames that may wait in `.realtime`: 100 ms of 30 fps video.
    public static let realtimeDepth = 3

    private let reader: Y4MReader
    private let pace: Pace
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [(frame: YUVFrame, index: Int)] = []
    private var finished = false
    private var failure: Error?
    private var closed = false
    private var dropped = 0
    private var received = 0

    public init(reader: Y4MReader, pace: Pace) {
        self.reader = reader
        self.pace = pace
    }

    public func start() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "gpustyle.live.read"
        thread.start()
    }

    private func readLoop() {
        var index = 0
        while true {
            let next: YUVFrame?
            do {
                next = try reader.next()
            } catch {
                condition.withLock { failure = error; finished = true; condition.broadcast() }
                return
            }
            condition.lock()
            guard let frame = next, !closed else {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            if pace != .realtime {
                while !queue.isEmpty && !closed { condition.wait() }
            } else if queue.count >= Self.realtimeDepth {
                queue.removeFirst()
                dropped += 1
            }
            queue.append((frame, index))
            received += 1
            index += 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next frame, waiting at most `timeout` seconds.
    public func next(timeout: Double) -> Delivery {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while queue.isEmpty && !finished {
            if !condition.wait(until: deadline) { break }
        }
        if !queue.isEmpty {
            let item = queue.removeFirst()
            condition.broadcast()
            return .frame(item.frame, index: item.index)
        }
        if let failure { return .failed(failure) }
        return finished ? .end : .waiting
    }

    /// Stops handing frames over (the reader thread ends at its next frame).
    public func close() {
        condition.withLock { closed = true; condition.broadcast() }
    }

    /// Waits until the reading thread has stopped (after `close`, it reads at most one more
    /// frame; at the end of the stream or on an error it stops by itself).
    public func waitUntilFinished() {
        condition.withLock { while !finished { condition.wait() } }
    }

    /// Frames read, and frames dropped because the queue was full.
    public var counts: (received: Int, dropped: Int) { condition.withLock { (received, dropped) } }
}
