import CKernels
import Dispatch
import Foundation
import XCTest
@testable import GPUStyle

/// Prints what one ParallelFor.ranges job costs against the same chunks on
/// DispatchQueue.concurrentPerform (what ranges used before the warm pool) and on one thread, for
/// jobs of about 20, 100 and 300 µs run back to back (MobileNetV2's steps at 224² are 10-300 µs),
/// and for two threads calling at once. Medians of 7 alternating rounds of 200 jobs each; the work
/// is gs_instance_norm_moments over 256-float rows. Runs only with GPUSTYLE_PARALLEL_TIMING=1 (timings
/// are meaningless on a busy test machine).
final class ParallelForTimingTests: XCTestCase {
    private static let rowLength = 256

    private static func work(_ data: UnsafePointer<Float>, _ rows: Range<Int>) {
        var sum = 0.0, squares = 0.0
        for row in rows { gs_instance_norm_moments(data + row * rowLength, Int64(rowLength), 0.5, &sum, &squares) }
        if sum.isNaN { print(sum) }
    }

    /// ranges' split, run with concurrentPerform (what ranges did before the pool).
    private static func dispatch(_ count: Int, _ body: (Range<Int>) -> Void) {
        ParallelFor.dispatch(count, min(count, ParallelFor.workers * 4), body)
    }

    private static func seconds(_ run: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        run()
        return Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
    }

    func testJobOverhead() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_PARALLEL_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_PARALLEL_TIMING=1")
        }
        let maxRows = 20_000
        let data = UnsafeMutablePointer<Float>.allocate(capacity: maxRows * Self.rowLength)
        defer { data.deallocate() }
        for i in 0..<maxRows * Self.rowLength { data[i] = Float(i % 97) * 0.01 }
        let input = UncheckedSendable(value: UnsafePointer(data))
        // Rows per µs of one thread, the data already in memory (the fastest of 5 passes).
        let rate = 20_000 / (0..<5).map { _ in Self.seconds { Self.work(data, 0..<20_000) } }.min()! * 1e-6
        let jobs = 200, rounds = 7
        print("ParallelFor: \(ParallelFor.workers) processors, pool of \(gs_parallel_pool_size()) workers, \(String(format: "%.0f", rate)) rows/µs on one thread")
        for target in [20.0, 100, 300] {
            let rows = min(maxRows, Int(target * rate))
            let modes: [(String, () -> Void)] = [
                ("one thread", { ParallelFor.$workerLimit.withValue(1) { ParallelFor.ranges(rows) { Self.work(input.value, $0) } } }),
                ("pool", { ParallelFor.ranges(rows) { Self.work(input.value, $0) } }),
                ("pool without spinning", {
                    let spin = gs_parallel_set_spin_ns(0)
                    ParallelFor.ranges(rows) { Self.work(input.value, $0) }
                    gs_parallel_set_spin_ns(spin)
                }),
                ("concurrentPerform", { Self.dispatch(rows) { Self.work(input.value, $0) } }),
            ]
            var times = [[Double]](repeating: [], count: modes.count)
            for _ in 0..<rounds {
                for (m, mode) in modes.enumerated() {
                    times[m].append(Self.seconds { for _ in 0..<jobs { mode.1() } } / Double(jobs) * 1e6)
                }
            }
            let medians = times.map { $0.sorted()[rounds / 2] }
            print(String(format: "job of %4.0f µs alone:", target), zip(modes, medians).map { String(format: "%@ %.1f µs", $0.0.0, $0.1) }.joined(separator: ", "))
            // Two callers at once, each running `jobs` jobs: the one that finds the pool held uses concurrentPerform.
            for (name, parallel) in [("pool", true), ("concurrentPerform", false)] {
                var walls: [Double] = []
                for _ in 0..<rounds {
                    walls.append(Self.seconds {
                        let group = DispatchGroup()
                        for _ in 0..<2 {
                            group.enter()
                            Thread {
                                for _ in 0..<jobs {
                                    if parallel { ParallelFor.ranges(rows) { Self.work(input.value, $0) } } else { Self.dispatch(rows) { Self.work(input.value, $0) } }
                                }
                                group.leave()
                            }.start()
                        }
                        group.wait()
                    } / Double(2 * jobs) * 1e6)
                }
                print(String(format: "  two callers at once, %@: %.1f µs a job", name, walls.sorted()[rounds / 2]))
            }
        }
    }
}
