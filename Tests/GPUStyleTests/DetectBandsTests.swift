import XCTest
@testable import GPUStyle

/// `DetectBands` on a drawn dark frame around a light matte, the frame's right outer edge
/// hidden along half its length (the wall there has the frame's colour).
final class DetectBandsTests: XCTestCase {
    /// Axis-aligned frame in image pixels: outer edge at x 160...480, y 120...360; the moulding is
    /// 16 px wide (8 px in the working map at half size).
    static let outer = (x0: 160.0, x1: 480.0, y0: 120.0, y1: 360.0)
    static let band = 16.0

    static func render() -> Image {
        let (w, h) = (640, 480)
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        let o = outer
        for y in 0..<h {
            for x in 0..<w {
                let px = Double(x), py = Double(y)
                let inOuter = px >= o.x0 && px < o.x1 && py >= o.y0 && py < o.y1
                let inInner = px >= o.x0 + band && px < o.x1 - band && py >= o.y0 + band && py < o.y1 - band
                // Right of the frame, over its lower half, the wall is as dark as the moulding.
                let hidden = px >= o.x1 && py >= (o.y0 + o.y1) / 2
                let wall: Float = hidden ? 0.2 : 0.7
                let value: Float = inInner ? 0.95 : (inOuter ? 0.2 : wall)
                for c in 0..<3 { rgb[(c * h + y) * w + x] = value }
            }
        }
        return Image(width: w, height: h, rgb: rgb, alpha: nil)
    }

    func testEveryBandOfOneWidthIsCrossed() throws {
        let map = DetectEdges.run(Self.render())
        let o = Self.outer, b = Self.band
        // The matte's outline, clockwise, in working coordinates (pixel edges at half-integers).
        let inner = [Point(x: o.x0 + b - 0.5, y: o.y0 + b - 0.5), Point(x: o.x1 - b - 0.5, y: o.y0 + b - 0.5),
                     Point(x: o.x1 - b - 0.5, y: o.y1 - b - 0.5), Point(x: o.x0 + b - 0.5, y: o.y1 - b - 0.5)].map { map.toWorking($0) }
        let matte = QuadCandidate(quad: Quad(topLeft: inner[0], topRight: inner[1], bottomRight: inner[2], bottomLeft: inner[3]),
                                  lines: [], coverage: [1, 1, 1, 1])
        // On its own, the right side's outer edge is too faint for a band.
        let right = DetectBands.nextBand(from: inner[1], to: inner[2], polarity: 1, reach: 30, map: map)
        XCTAssertNil(right, "the hidden half leaves the right outer edge under the first pass's coverage")

        let pushed = DetectBands.pushOut(matte, map: map, options: RectangleDetectionOptions())
        let expected = [Point(x: o.x0 - 0.5, y: o.y0 - 0.5), Point(x: o.x1 - 0.5, y: o.y0 - 0.5),
                        Point(x: o.x1 - 0.5, y: o.y1 - 0.5), Point(x: o.x0 - 0.5, y: o.y1 - 0.5)].map { map.toWorking($0) }
        for (found, truth) in zip(pushed.quad.corners, expected) {
            XCTAssertLessThan(found.distance(to: truth), 1.5, "corner \(found) vs the frame's \(truth)")
        }
    }
}
