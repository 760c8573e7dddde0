import XCTest
@testable import GPUStyle

/// Edge segments (`DetectSegments`) and corner junctions (`DetectJunctions`), checked against
/// the geometry the synthetic scene was drawn from.
final class DetectSegmentsTests: XCTestCase {
    static let truth = DetectStagesTests.truth

    func map() -> EdgeMap {
        DetectEdges.run(SyntheticScene.render(width: 640, height: 480, quad: Self.truth))
    }

    /// Each side of the drawn picture is one segment among the longest: both ends on the side's
    /// line and most of its length covered.
    func testSegmentsFollowTheSidesOfAPicture() {
        let map = map()
        let segments = DetectSegments.find(map, minimumLength: 14)
        let corners = Self.truth.corners.map { map.toWorking($0) }
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let side = DetectBands.lineThrough(a, b)
            let found = segments.prefix(8).contains { s in
                let ends = [s.line.point(at: s.t0), s.line.point(at: s.t1)]
                let onLine = ends.allSatisfy { abs($0.x * side.cosTheta + $0.y * side.sinTheta - side.rho) < 1 }
                return onLine && s.length >= 0.8 * a.distance(to: b)
            }
            XCTAssertTrue(found, "side \(i) is not among the 8 longest segments")
        }
    }

    func piece(from p: Point, to q: Point) -> DetectSegments.Segment {
        var moments = LineMoments()
        let steps = Int(p.distance(to: q).rounded())
        for k in 0...steps {
            let t = Double(k) / Double(steps)
            moments.add(p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t)
        }
        let line = moments.line(facing: DetectSegments.reference, votes: steps + 1)!
        let ends = [line.parameter(of: p), line.parameter(of: q)]
        return DetectSegments.Segment(line: line, t0: ends.min()!, t1: ends.max()!, moments: moments)
    }

    /// Two pieces of one edge across a gap join into one segment spanning both; a parallel edge
    /// 3 px away stays separate.
    func testMergeJoinsCollinearPiecesOnly() {
        let left = piece(from: Point(x: 10, y: 20), to: Point(x: 50, y: 24))
        let right = piece(from: Point(x: 62, y: 25.2), to: Point(x: 110, y: 30))
        let merged = DetectSegments.merge([left, right])
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged[0].length, Point(x: 10, y: 20).distance(to: Point(x: 110, y: 30)), accuracy: 0.05)

        let parallel = piece(from: Point(x: 62, y: 28.2), to: Point(x: 110, y: 33))
        XCTAssertEqual(DetectSegments.merge([left, parallel]).count, 2)
    }

    /// The drawn picture's corners are L junctions; a rectangle cut out of it (two sides shared,
    /// two inside the picture) has sides that run on past its corners.
    func testOvershootSeparatesAPictureFromARectangleInsideIt() {
        let map = map()
        let c = Self.truth.corners.map { map.toWorking($0) }
        let whole = Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3])
        let mid = { (p: Point, q: Point) in (p + q) * 0.5 }
        let cut = Quad(topLeft: c[0], topRight: mid(c[0], c[1]), bottomRight: (c[0] + c[1] + c[2] + c[3]) * 0.25,
                       bottomLeft: mid(c[3], c[0]))
        XCTAssertLessThan(DetectJunctions.overshoot(whole, map: map), 0.05)
        XCTAssertGreaterThan(DetectJunctions.overshoot(cut, map: map), 0.2)
    }

    /// A fully covered rectangle inside the picture outranks the picture on edge score and size
    /// alone; its running-on sides put the picture first.
    func testSelectPrefersThePictureOverARectangleCutFromIt() {
        let map = map()
        let c = Self.truth.corners.map { map.toWorking($0) }
        let whole = QuadCandidate(quad: Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3]),
                                  lines: [], coverage: [0.9, 0.9, 0.9, 0.9])
        let cutCorners = [c[0], (c[0] + c[1]) * 0.5, (c[0] + c[1] + c[2] + c[3]) * 0.25, (c[3] + c[0]) * 0.5]
        let cut = QuadCandidate(quad: Quad(topLeft: cutCorners[0], topRight: cutCorners[1], bottomRight: cutCorners[2],
                                           bottomLeft: cutCorners[3]), lines: [], coverage: [1, 1, 1, 1])
        let detector = RectangleDetector()
        XCTAssertGreaterThan(detector.rank(cut), detector.rank(whole), "without junctions the cut-out ranks first")
        let chosen = detector.select([cut, whole], limit: 1, shortSide: Double(min(map.width, map.height)), map: map).picks
        XCTAssertEqual(chosen.first?.outline.quad.area ?? 0, whole.quad.area, accuracy: 1e-9)
    }
}
