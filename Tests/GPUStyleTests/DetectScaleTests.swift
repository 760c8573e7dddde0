import XCTest
@testable import GPUStyle

/// The working-size rule and the libm-free rounding the detector's probes use.
final class DetectScaleTests: XCTestCase {
    /// The smallest integer downscale that fits 640x360 pixels, as documented.
    func testWorkingScale() {
        XCTAssertEqual(DetectEdges.scale(width: 640, height: 360), 1)
        XCTAssertEqual(DetectEdges.scale(width: 640, height: 480), 2)
        XCTAssertEqual(DetectEdges.scale(width: 1280, height: 720), 2)
        XCTAssertEqual(DetectEdges.scale(width: 1920, height: 1080), 3)
        XCTAssertEqual(DetectEdges.scale(width: 4000, height: 300), 3)
        XCTAssertEqual(DetectEdges.scale(width: 16, height: 16), 1)
    }

    /// Same results as the standard library's rounding, halves and negatives included.
    func testFastRoundingMatchesTheStandardLibrary() {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, 1e9 + 0.5]
        var state: UInt64 = 7
        for _ in 0..<10_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append((Double(state >> 11) / Double(1 << 53) - 0.5) * 2000)
            values.append(Double(Int(state >> 54)) / 2 - 256)  // exact halves
        }
        for v in values {
            XCTAssertEqual(nearestInt(v), Int(v.rounded()), "\(v)")
            XCTAssertEqual(floorInt(v), Int(v.rounded(.down)), "\(v)")
            XCTAssertEqual(ceilInt(v), Int(v.rounded(.up)), "\(v)")
            let f = Float(v)
            XCTAssertEqual(nearestInt(f), Int(f.rounded()), "\(f)")
        }
    }
}
