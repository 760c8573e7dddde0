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
        let o = outer
        // Right of the frame, over its lower half, the wall is as dark as the moulding.
        return DrawnFrame.render(outer: o, band: band, matte: (0.95, 0.95, 0.95), moulding: (0.2, 0.2, 0.2)) { x, y in
            x >= o.x1 && y >= (o.y0 + o.y1) / 2 ? (0.2, 0.2, 0.2) : (0.7, 0.7, 0.7)
        }
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
