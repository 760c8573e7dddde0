import Foundation
import XCTest
@testable import GPUStyle

/// The code paths of the C bilinear kernel (Sources/CKernels/warp*.c) that the fixtures do not
/// single out, each against the plain per-pixel Double reference: interior and border-clamped
/// pixels at large source coordinates, rows spanning several chunks with a partial last one,
/// runs whose local parameters are not finite, and sources one pixel wide or high.
final class WarpKernelPathTests: XCTestCase {
    let warper = CPUPerspectiveWarper()

    func warpAndReference(_ source: Image, _ h: Homography, width: Int, height: Int, originX: Int = 0,
                          originY: Int = 0) throws -> (out: [Float], reference: [Float]) {
        let out = try warper.warp(source, outputToSource: h, width: width, height: height, originX: originX,
                                  originY: originY, interpolation: .bilinear)
        return (WarpFixtures.planes(out),
                WarpFixtures.naiveBilinear(source, h, width: width, height: height, originX: originX, originY: originY))
    }

    /// Near x = 1200 a Float coordinate is only good to ~1e-4 px, which on noise moves values by
    /// ~1e-4: the 1e-5 tolerance holds only with the local-origin re-basing. The quad hangs over
    /// the bottom-right corner, so runs mix interior pixels with clamped ones (taps on the last
    /// column and row included).
    func testInteriorAndClampedPixelsAtLargeCoordinates() throws {
        let source = WarpFixtures.randomImage(width: 1200, height: 1100, seed: 21)
        let (w, h) = (100, 90)
        let quad = Quad(topLeft: Point(x: 1120.3, y: 1020.7), topRight: Point(x: 1230.9, y: 1035.2),
                        bottomRight: Point(x: 1215.4, y: 1140.8), bottomLeft: Point(x: 1105.6, y: 1125.1))
        let mapping = try Homography.rectangle(width: w, height: h, to: quad)
        var inside = 0, outside = 0
        for y in 0..<h {
            for x in 0..<w {
                let p = mapping.apply(Point(x: Double(x), y: Double(y)))
                if p.x >= 0 && p.x < 1199 && p.y >= 0 && p.y < 1099 { inside += 1 } else { outside += 1 }
            }
        }
        XCTAssertGreaterThan(inside, 1000)
        XCTAssertGreaterThan(outside, 1000)
        let (out, reference) = try warpAndReference(source, mapping, width: w, height: h)
        assertClose(out, reference, tolerance: 1e-5, "large coordinates")
    }

    /// Rows of several 256-pixel chunks, the last one partial (and its last 8-pixel group too).
    func testRowsSpanningSeveralChunks() throws {
        let source = WarpFixtures.randomImage(width: 97, height: 61, alpha: true, seed: 5)
        for width in [255, 256, 257, 300, 523] {
            let quad = Quad(topLeft: Point(x: -3.5, y: 2.25), topRight: Point(x: 101.5, y: -4),
                            bottomRight: Point(x: 90.75, y: 66), bottomLeft: Point(x: 4, y: 58.5))
            let mapping = try Homography.rectangle(width: width, height: 3, to: quad)
            let (out, reference) = try warpAndReference(source, mapping, width: width, height: 3)
            assertClose(out, reference, tolerance: 1e-5, "width \(width)")
        }
    }

    /// w = 1 - x / z is exactly 0 (z a power of two: no rounding, FMA or not) where a 32-pixel run
    /// starts, so that run's parameters relative to its first pixel are infinite and it is sampled
    /// per pixel in Double (sources at ±inf and NaN included); runs around it take the vector path.
    func testRunStartingOnTheHorizon() throws {
        let source = WarpFixtures.randomImage(width: 40, height: 30, seed: 8)
        for originX in [0, -32, 64] {
            let zeroAt = Double(originX + 64)  // output column 64: the third run
            let mapping = Homography(matrix: [3, 0.5, 7, 0.25, 2, 4, -1 / zeroAt, 0, 1])
            XCTAssertEqual(mapping.denominator(at: Point(x: zeroAt, y: 0)), 0)
            let (out, reference) = try warpAndReference(source, mapping, width: 150, height: 4, originX: originX)
            assertClose(out, reference, tolerance: 1e-5, "origin \(originX)")
        }
    }

    /// One-pixel-wide or -high sources have no 2x2 footprint; the kernel samples them per pixel.
    func testThinSources() throws {
        let mapping = Homography(matrix: [0.9, 0.1, -2, 0.05, 1.1, -1.5, 0.001, 0.002, 1])
        for (w, h) in [(1, 1), (1, 9), (9, 1), (2, 2)] {
            let source = WarpFixtures.randomImage(width: w, height: h, alpha: true, seed: UInt64(10 * w + h))
            let (out, reference) = try warpAndReference(source, mapping, width: 13, height: 11)
            assertClose(out, reference, tolerance: 1e-5, "\(w)x\(h) source")
        }
    }
}
