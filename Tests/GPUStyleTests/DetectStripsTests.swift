import XCTest
@testable import GPUStyle

/// The colour checks on drawn frames: `DetectBands.crossesFrame` (a lone side must cross
/// moulding, not wall) and `DetectStuckSides` (a side on the moulding's inner edge moves out).
final class DetectStripsTests: XCTestCase {
    /// Outer edge of a dark frame in image pixels, on a light wall; the moulding is `band` wide
    /// and holds a light matte.
    static let outer = (x0: 160.0, x1: 480.0, y0: 120.0, y1: 360.0)

    /// `seam`: a darker vertical stripe of wall (x range) right of the frame, like a panel seam.
    static func render(band: Double, seam: Range<Double>? = nil) -> Image {
        DrawnFrame.render(outer: outer, band: band, matte: (0.93, 0.92, 0.9), moulding: (0.25, 0.16, 0.1)) { x, _ in
            seam?.contains(x) == true ? (0.45, 0.42, 0.38) : (0.75, 0.72, 0.66)
        }
    }

    /// A clockwise quad through image-pixel rectangle bounds, in working coordinates.
    static func candidate(x0: Double, x1: Double, y0: Double, y1: Double, map: EdgeMap) -> QuadCandidate {
        let c = [Point(x: x0 - 0.5, y: y0 - 0.5), Point(x: x1 - 0.5, y: y0 - 0.5),
                 Point(x: x1 - 0.5, y: y1 - 0.5), Point(x: x0 - 0.5, y: y1 - 0.5)].map { map.toWorking($0) }
        return QuadCandidate(quad: Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3]),
                             lines: [], coverage: [1, 1, 1, 1])
    }

    static func assertCorners(_ found: QuadCandidate, _ expected: QuadCandidate, within tolerance: Double,
                              _ message: String, line: UInt = #line) {
        for (f, e) in zip(found.quad.corners, expected.quad.corners) {
            XCTAssertLessThan(f.distance(to: e), tolerance, "\(message): corner \(f) vs \(e)", line: line)
        }
    }

    func testALoneSideDoesNotStepAcrossTheWall() {
        let o = Self.outer
        let image = Self.render(band: 16, seam: (o.x1 + 14)..<(o.x1 + 30))
        let map = DetectEdges.run(image)
        let outline = Self.candidate(x0: o.x0, x1: o.x1, y0: o.y0, y1: o.y1, map: map)
        // Without the colours, the right side steps out to the seam: an opposite-polarity edge
        // beyond a plain strip, which is what a band looks like to the edges alone.
        let blind = DetectBands.pushOut(outline, map: map, options: RectangleDetectionOptions())
        XCTAssertGreaterThan(blind.quad.topRight.x, outline.quad.topRight.x + 4, "the seam passes for a band by its edges")
        let seeing = DetectBands.pushOut(outline, map: map, options: RectangleDetectionOptions(), image: image)
        Self.assertCorners(seeing, outline, within: 0.5, "the outline stays")
    }

    func testALoneSideStillCrossesItsMoulding() {
        let o = Self.outer, band = 16.0
        let image = Self.render(band: band)
        let map = DetectEdges.run(image)
        // Three sides on the outline, the right one on the moulding's inner edge.
        let stuck = Self.candidate(x0: o.x0, x1: o.x1 - band, y0: o.y0, y1: o.y1, map: map)
        let pushed = DetectBands.pushOut(stuck, map: map, options: RectangleDetectionOptions(), image: image)
        Self.assertCorners(pushed, Self.candidate(x0: o.x0, x1: o.x1, y0: o.y0, y1: o.y1, map: map), within: 1.5,
                           "the right side crosses the moulding")
    }

    func testASideOnAWideMouldingsInnerEdgeMovesOut() {
        let o = Self.outer, band = 40.0
        let image = Self.render(band: band)
        let map = DetectEdges.run(image)
        let outline = Self.candidate(x0: o.x0, x1: o.x1, y0: o.y0, y1: o.y1, map: map)
        let stuck = Self.candidate(x0: o.x0, x1: o.x1, y0: o.y0, y1: o.y1 - band, map: map)
        let options = RectangleDetectionOptions()
        // A 20-px band (working) is beyond a band step's reach for this quad.
        let banded = DetectBands.pushOut(stuck, map: map, options: options, image: image)
        Self.assertCorners(banded, stuck, within: 0.5, "the band step leaves the bottom side")
        Self.assertCorners(DetectStuckSides.run(stuck, map: map, options: options, image: image), outline, within: 1.5,
                           "the bottom side moves out to the outline")
        Self.assertCorners(DetectStuckSides.run(outline, map: map, options: options, image: image), outline, within: 0.01,
                           "an outline already on the wall stays")
    }
}
