import Foundation
import XCTest
@testable import GPUStyle

/// The GLSL colour conversion (yuv_to_rgb.comp) against the CPU kernel, which Y4MTests checks
/// against ffmpeg and numpy: every layout, odd sizes, both ranges, validation layer on.
final class VulkanFrameConverterTests: XCTestCase {
    static func randomFrame(width: Int, height: Int, chroma: ChromaLayout, seed: UInt64) -> YUVFrame {
        var random = SeededRandom(seed: seed)
        let (cw, ch) = chroma.chromaSize(width: width, height: height)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next() >> 56) } }
        return YUVFrame(width: width, height: height, chroma: chroma, y: bytes(width * height), u: bytes(cw * ch), v: bytes(cw * ch))
    }

    func testMatchesTheCPUKernel() throws {
        let context = try VulkanTesting.context()
        let converter = try VulkanFrameConverter(context: context)
        var frames: [(String, YUVFrame)] = []
        for name in ["yuv420.y4m", "yuv422.y4m", "yuv444.y4m"] {
            frames.append((name, try Y4MTests.read(name).1[1]))
        }
        let layouts: [ChromaLayout] = [.yuv420(centred: true), .yuv420(centred: false), .yuv422, .yuv444, .mono]
        for (k, layout) in layouts.enumerated() {
            frames.append(("random \(layout) 37x23", Self.randomFrame(width: 37, height: 23, chroma: layout, seed: UInt64(k + 1))))
        }
        frames.append(("random 4:2:0 640x480", Self.randomFrame(width: 640, height: 480, chroma: .yuv420(centred: true), seed: 99)))
        for (label, frame) in frames {
            for fullRange in [false, true] {
                let cpu = YUVConversion.image(from: frame, fullRange: fullRange)
                let gpu = try converter.image(from: frame, fullRange: fullRange)
                XCTAssertEqual(gpu.width, cpu.width, label)
                XCTAssertEqual(gpu.height, cpu.height, label)
                var largest: Float = 0
                for (a, b) in zip(gpu.rgb, cpu.rgb) { largest = max(largest, abs(a - b)) }
                XCTAssertLessThanOrEqual(largest, 2e-6, "\(label), full range \(fullRange)")
            }
        }
        VulkanTesting.assertNoValidationErrors(context)
    }
}
