import CKernels
import Foundation
import XCTest
@testable import GPUStyle

/// ParallelFor.ranges and its warm pool (Sources/CKernels/parallel_for.c): the ranges, the
/// worker limit, concurrent and nested callers, and no spinning once the process is idle.
final class ParallelForTests: XCTestCase {
    /// The ranges one call produced, with the thread each ran on.
    private final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var ranges: [(range: Range<Int>, thread: pthread_t)] = []
        func add(_ range: Range<Int>) {
            lock.lock()
            ranges.append((range, pthread_self()))
            lock.unlock()
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return ranges.count
        }
    }

    private func record(_ count: Int, grain: Int) -> Record {
        let record = Record()
        ParallelFor.ranges(count, grain: grain) { range in
            // Long enough per chunk that the workers take some of them.
            var x = 0.0
            for i in 0..<(range.count * 20) { x += Double(i) }
            if x < 0 { print(x) }
            record.add(range)
        }
        return record
    }

    func testRangesAreDisjointAndCoverZeroToCount() {
        for count in [0, 1, 2, 7, 1000, 100_000] {
            for grain in [1, 2, 3, 8, 64, 1000, 5000] {
                let ranges = record(count, grain: grain).ranges.map(\.range).sorted { $0.lowerBound < $1.lowerBound }
                var next = 0
                for range in ranges {
                    XCTAssertEqual(range.lowerBound, next, "count \(count) grain \(grain): a gap or an overlap at \(next)")
                    XCTAssertFalse(range.isEmpty, "count \(count) grain \(grain): an empty range")
                    next = range.upperBound
                }
                XCTAssertEqual(next, count, "count \(count) grain \(grain): the ranges end at \(next)")
                if count == 0 { XCTAssertTrue(ranges.isEmpty) }
                if ranges.count > 1 {
                    XCTAssertGreaterThanOrEqual(ranges.map(\.count).min()!, grain, "count \(count) grain \(grain)")
                }
                // More than one range only when the work splits into at least two grains.
                XCTAssertLessThanOrEqual(ranges.count, max(1, count / grain), "count \(count) grain \(grain)")
            }
        }
    }

    func testWorkerLimitOneRunsEverythingOnTheCaller() {
        let caller = pthread_self()
        let record = ParallelFor.$workerLimit.withValue(1) { self.record(1000, grain: 1) }
        XCTAssertEqual(record.ranges.map(\.range), [0..<1000])
        XCTAssertTrue(record.ranges.allSatisfy { pthread_equal($0.thread, caller) != 0 })
    }

    /// A chunk that waits until another chunk has finished completes only when two threads run
    /// the job's chunks at once.
    func testTheCallerAndAWorkerRunChunksAtTheSameTime() throws {
        try XCTSkipIf(gs_parallel_pool_size() == 0 || ParallelFor.workers < 2, "one processor: no pool")
        let finished = Record()
        let waited = Record()
        let start = Date()
        ParallelFor.ranges(8) { range in
            if range.lowerBound == 0 {
                while finished.count == 0 && Date().timeIntervalSince(start) < 10 { usleep(100) }
                if finished.count > 0 { waited.add(range) }
            } else {
                finished.add(range)
            }
        }
        XCTAssertEqual(waited.ranges.count, 1, "chunk 0 waited 10 s for a chunk that ran on the same thread after it")
        XCTAssertEqual(finished.ranges.count, 7)
        let threads = (finished.ranges + waited.ranges).map(\.thread)
        XCTAssertTrue(threads.contains { pthread_equal($0, threads[0]) == 0 }, "every chunk ran on one thread")
    }

    /// Several threads call ranges at once, and every body calls it again (the pool is then
    /// held, so the nested calls go to concurrentPerform); every item is written exactly once per call.
    func testConcurrentAndNestedCallsCompleteAndCoverEveryItem() {
        let threads = 4, calls = 50, count = 1000
        let fallbacksBefore = gs_parallel_pool_held_count()
        let results = UnsafeMutableBufferPointer<Int32>.allocate(capacity: threads * count)
        results.initialize(repeating: 0)
        defer { results.deallocate() }
        let buffer = UncheckedSendable(value: results)
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            Thread {
                let row = UnsafeMutableBufferPointer(rebasing: buffer.value[t * count..<(t + 1) * count])
                for _ in 0..<calls {
                    ParallelFor.ranges(count, grain: 10) { outer in
                        ParallelFor.ranges(outer.count) { inner in
                            for i in inner { row[outer.lowerBound + i] += 1 }
                        }
                    }
                }
                group.leave()
            }.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success, "the callers did not finish in 2 minutes (a deadlock?)")
        for t in 0..<threads {
            let row = Array(results[t * count..<(t + 1) * count])
            XCTAssertEqual(row.filter { $0 != Int32(calls) }.count, 0, "thread \(t): items not written exactly \(calls) times")
        }
        if gs_parallel_pool_size() > 0 {
            XCTAssertGreaterThan(gs_parallel_pool_held_count(), fallbacksBefore, "no call found the pool held")
        }
    }

    /// After a job the workers spin for a bounded time and then sleep: an idle process uses
    /// (almost) no processor time.
    func testIdleWorkersDoNotSpin() throws {
        try XCTSkipIf(gs_parallel_pool_size() == 0 || ParallelFor.workers < 2, "one processor: no pool")
        _ = record(100_000, grain: 1)
        usleep(50_000)  // past the spin bound (50 µs)
        func processTime() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
        }
        let before = processTime()
        usleep(300_000)
        let used = processTime() - before
        XCTAssertLessThan(used, 0.03, "the process used \(used) s of processor time in 0.3 s idle")
    }

    /// The kernels use the processors the process may run on, not all the machine's: under
    /// `taskset -c 0` the CPU path says, and runs, one thread.
    func testWorkersFollowTheCPUAffinity() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else { throw XCTSkip("no taskset") }
        let gpustyle = TestProcess.productsDirectory.appendingPathComponent("gpustyle").path
        let pinned = try TestProcess.run("/usr/bin/taskset", ["-c", "0", gpustyle, "devices"])
        XCTAssertEqual(pinned.status, 0, pinned.stderr)
        XCTAssertTrue(String(decoding: pinned.stdout, as: UTF8.self).contains("cpu (1 thread, "),
                      String(decoding: pinned.stdout, as: UTF8.self))
        let pinnedTwo = try TestProcess.run("/usr/bin/taskset", ["-c", "0,1", gpustyle, "devices"])
        if ProcessInfo.processInfo.activeProcessorCount >= 2 {
            XCTAssertTrue(String(decoding: pinnedTwo.stdout, as: UTF8.self).contains("cpu (2 threads, "),
                          String(decoding: pinnedTwo.stdout, as: UTF8.self))
        }
        XCTAssertEqual(ParallelFor.workers, Int(gs_processor_count()))
    }
}
