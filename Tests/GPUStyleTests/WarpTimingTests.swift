import Foundation
import XCTest
@testable import GPUStyle

/// Prints warp timings for 1920x1080 -> 1024x768 (CPU kernel and GLSL kernel). Runs only with
/// GPUSTYLE_WARP_TIMING=1 (timings are meaningless on a busy test machine).
final class WarpTimingTests: XCTestCase {
    func testTiming1080pTo1024x768() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_WARP_TIMING"] == "1" else { throw XCTSkip("set GPUSTYLE_WARP_TIMING=1") }
        let source = WarpFixtures.procedural(width: 1920, height: 1080)
        let quad = Quad(topLeft: Point(x: 212.3, y: 101.7), topRight: Point(x: 1790.4, y: 155.1),
                        bottomRight: Point(x: 1761.2, y: 1002.9), bottomLeft: Point(x: 180.8, y: 1040.2))
        var warpers: [PerspectiveWarper] = [CPUPerspectiveWarper()]
        if let context = try? VulkanContext() { warpers.append(try VulkanPerspectiveWarper(context: context)) }
        for warper in warpers {
            for interpolation in WarpInterpolation.allCases {
                var times: [Double] = []
                for _ in 0..<(warper is CPUPerspectiveWarper ? 100 : 10) {
                    let start = MonotonicClock.seconds()
                    _ = try PerspectiveCorrection.rectify(source, quad: quad, width: 1024, height: 768, interpolation: interpolation, warper: warper)
                    times.append(MonotonicClock.seconds() - start)
                }
                times.sort()
                print(String(format: "warp 1920x1080 -> 1024x768 %@ %@: median %.2f ms, min %.2f ms", warper.name, interpolation.rawValue,
                             times[times.count / 2] * 1000, times[0] * 1000))
            }
        }
    }

    func testVulkanOverhead() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_WARP_TIMING"] == "1" else { throw XCTSkip("set GPUSTYLE_WARP_TIMING=1") }
        let source = WarpFixtures.procedural(width: 1920, height: 1080)
        let gpu = try VulkanPerspectiveWarper(context: try VulkanContext())
        for (w, h) in [(2, 2), (1024, 768)] {
            var times: [Double] = []
            for _ in 0..<8 {
                let start = MonotonicClock.seconds()
                _ = try gpu.warp(source, outputToSource: .translation(100, 50), width: w, height: h)
                times.append(MonotonicClock.seconds() - start)
            }
            print(String(format: "vulkan identity-ish warp to %dx%d: min %.2f ms", w, h, times.min()! * 1000))
        }
    }
}
