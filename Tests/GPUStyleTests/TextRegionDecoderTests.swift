import Foundation
import XCTest
@testable import GPUStyle

/// A probability map drawn for the tests: rectangles filled where pixel centres fall inside.
struct DrawnTextMap {
    let width: Int, height: Int
    var values: [Float]

    init(width: Int, height: Int, fill: Float = 0) {
        self.width = width
        self.height = height
        values = [Float](repeating: fill, count: width * height)
    }

    /// Pixels whose centres lie in the rectangle of `length` x `breadth` centred on `centre`,
    /// its length turned `degrees` clockwise on screen from the x axis, take `value`.
    mutating func rectangle(centre: Point, length: Double, breadth: Double, degrees: Double, value: Float = 0.9) {
        let t = degrees * .pi / 180, c = cos(t), s = sin(t)
        let reach = (length + breadth) / 2 + 1
        let xs = max(0, Int(centre.x - reach))...min(width - 1, Int(centre.x + reach))
        let ys = max(0, Int(centre.y - reach))...min(height - 1, Int(centre.y + reach))
        for y in ys {
            for x in xs {
                let dx = Double(x) - centre.x, dy = Double(y) - centre.y
                if abs(dx * c + dy * s) <= length / 2 + 1e-9 && abs(-dx * s + dy * c) <= breadth / 2 + 1e-9 {
                    values[y * width + x] = value
                }
            }
        }
    }

    /// Pixels x0...x1 by y0...y1 (inclusive) take `value`.
    mutating func box(x0: Int, y0: Int, x1: Int, y1: Int, value: Float = 0.9) {
        for y in y0...y1 { for x in x0...x1 { values[y * width + x] = value } }
    }

    func regions(_ options: TextRegionOptions = TextRegionOptions()) -> [TextRegion] {
        TextRegionDecoder.regions(probabilities: values, width: width, height: height, options: options)
    }
}

/// Independent geometry for the expectations: DB's unclip distance and the reading-order rule
/// written out from the documentation, and a brute-force minimum-area rectangle.
enum TextRegionExpectation {
    /// d = area x 1.5 / perimeter of a length x breadth rectangle.
    static func grown(length: Double, breadth: Double, ratio: Double = 1.5) -> (length: Double, breadth: Double) {
        let d = length * breadth * ratio / (2 * (length + breadth))
        return (length + 2 * d, breadth + 2 * d)
    }

    /// The corners of a rectangle whose long side points along `degrees` (clockwise on
    /// screen), in reading order: the long side runs left to right when within 45° of
    /// horizontal, else top to bottom; "down" is that direction turned 90° clockwise.
    static func readingQuad(centre: Point, length: Double, breadth: Double, degrees: Double) -> Quad {
        let t = degrees * .pi / 180
        var u = Point(x: cos(t), y: sin(t))
        if abs(u.x) >= abs(u.y) ? u.x < 0 : u.y < 0 { u = u * -1 }
        let down = Point(x: -u.y, y: u.x)
        let a = u * (length / 2), b = down * (breadth / 2)
        return Quad(topLeft: centre - a - b, topRight: centre + a - b, bottomRight: centre + a + b, bottomLeft: centre - a + b)
    }

    /// A rectangle as the range of projections on two perpendicular directions.
    struct Rectangle {
        var u: Point, v: Point
        var a: ClosedRange<Double>, b: ClosedRange<Double>
        var length: Double { a.upperBound - a.lowerBound }
        var breadth: Double { b.upperBound - b.lowerBound }

        /// Corners clockwise on screen (v is u turned clockwise), each side pushed out by `d`.
        func corners(grownBy d: Double = 0) -> [Point] {
            let (a0, a1, b0, b1) = (a.lowerBound - d, a.upperBound + d, b.lowerBound - d, b.upperBound + d)
            return [u * a0 + v * b0, u * a1 + v * b0, u * a1 + v * b1, u * a0 + v * b1]
        }

        func contains(_ p: Point, tolerance: Double) -> Bool {
            a.contains(p.x * u.x + p.y * u.y, within: tolerance) && b.contains(p.x * v.x + p.y * v.y, within: tolerance)
        }
    }

    /// The smallest-area rectangle around `points` by trying every angle in 0.005° steps, then
    /// 0.00001° steps around the best (slow, obviously right).
    static func bruteForceRectangle(_ points: [Point]) -> Rectangle {
        func box(_ degrees: Double) -> Rectangle {
            let t = degrees * .pi / 180
            let u = Point(x: cos(t), y: sin(t)), v = Point(x: -sin(t), y: cos(t))
            let a = points.map { $0.x * u.x + $0.y * u.y }, b = points.map { $0.x * v.x + $0.y * v.y }
            return Rectangle(u: u, v: v, a: a.min()!...a.max()!, b: b.min()!...b.max()!)
        }
        var best = box(0), bestAngle = 0.0
        for step in 1..<18000 {
            let candidate = box(Double(step) * 0.005)
            if candidate.length * candidate.breadth < best.length * best.breadth { best = candidate; bestAngle = Double(step) * 0.005 }
        }
        for step in -500...500 {
            let candidate = box(bestAngle + Double(step) * 0.00001)
            if candidate.length * candidate.breadth < best.length * best.breadth { best = candidate }
        }
        return best
    }

    /// The largest distance from a corner of `a` to the nearest corner of `b` (orders aside).
    static func cornerSetDistance(_ a: [Point], _ b: [Point]) -> Double {
        a.map { p in b.map { p.distance(to: $0) }.min()! }.max()!
    }

    /// The largest distance between corresponding corners, in order.
    static func cornerDistance(_ a: Quad, _ b: Quad) -> Double {
        zip(a.corners, b.corners).map { $0.distance(to: $1) }.max()!
    }
}

final class TextRegionDecoderTests: XCTestCase {
    typealias Expect = TextRegionExpectation

    /// A 120 x 24 rectangle at 0, ±20, ±60 and 90 degrees: one region, grown by d = 15 to
    /// 150 x 54, corners within 1.5 px of the analytic ones in reading order.
    func testRotatedRectangles() {
        let centre = Point(x: 120, y: 120)
        let grown = Expect.grown(length: 120, breadth: 24)
        XCTAssertEqual(grown.length, 150, accuracy: 1e-9)
        for degrees in [0.0, 20, -20, 60, -60, 90] {
            var map = DrawnTextMap(width: 240, height: 240)
            map.rectangle(centre: centre, length: 120, breadth: 24, degrees: degrees)
            let found = map.regions()
            XCTAssertEqual(found.count, 1, "\(degrees)°")
            guard let region = found.first else { continue }
            let expected = Expect.readingQuad(centre: centre, length: grown.length, breadth: grown.breadth, degrees: degrees)
            let error = Expect.cornerDistance(region.quad, expected)
            XCTAssertLessThanOrEqual(error, 1.5, "\(degrees)°: \(region.quad) vs \(expected)")
            // 0.9 inside; a tilted box's score also counts the dark pixels its sides cross
            // (`TextBoxScore`, as PaddleOCR).
            XCTAssertTrue((0.75...0.9001).contains(region.score), "\(degrees)°: score \(region.score)")
            XCTAssertGreaterThan(region.quad.area, 0, "clockwise on screen")
        }
    }

    /// The order spelled out: a level line's topLeft is its upper-left corner; a line at 20° keeps
    /// its long side on top; a vertical one reads top to bottom with topLeft at its top right.
    func testCornerOrder() {
        func quad(_ degrees: Double) -> Quad {
            var map = DrawnTextMap(width: 240, height: 240)
            map.rectangle(centre: Point(x: 120, y: 120), length: 120, breadth: 24, degrees: degrees)
            return map.regions()[0].quad
        }
        let level = quad(0)
        XCTAssertEqual(level.topLeft.x, 45, accuracy: 0.01)
        XCTAssertEqual(level.topLeft.y, 93, accuracy: 0.01)
        XCTAssertEqual(level.bottomRight.x, 195, accuracy: 0.01)
        XCTAssertEqual(level.bottomRight.y, 147, accuracy: 0.01)
        for degrees in [20.0, -20, 44, -44] {
            let q = quad(degrees)
            XCTAssertLessThan(q.topLeft.x, q.topRight.x, "\(degrees)°")
            XCTAssertLessThan(q.topLeft.y, q.bottomLeft.y, "\(degrees)°")
            XCTAssertGreaterThan(q.topLeft.distance(to: q.topRight), q.topLeft.distance(to: q.bottomLeft), "\(degrees)°")
        }
        let vertical = quad(90)
        XCTAssertEqual(vertical.topLeft.x, 147, accuracy: 0.01)
        XCTAssertEqual(vertical.topLeft.y, 45, accuracy: 0.01)
        XCTAssertEqual(vertical.topRight.x, 147, accuracy: 0.01)
        XCTAssertEqual(vertical.topRight.y, 195, accuracy: 0.01)
        // Turned -90° (reading upwards) gives the same pixels, so the same quad.
        XCTAssertLessThanOrEqual(Expect.cornerDistance(quad(-90), vertical), 0.01)
        for degrees in [60.0, -60, 80, 100] {
            let q = quad(degrees)
            XCTAssertLessThan(q.topLeft.y, q.topRight.y, "\(degrees)°: reads downwards")
            XCTAssertGreaterThan(q.topLeft.distance(to: q.topRight), q.topLeft.distance(to: q.bottomLeft), "\(degrees)°")
        }
    }

    /// Two words 2 px apart on one line (the right one 2 px higher) and a line below: three
    /// regions, in reading order, each its own w - 1 x h - 1 core grown by its own d.
    func testCloseRegionsInReadingOrder() {
        var map = DrawnTextMap(width: 160, height: 110)
        map.box(x0: 20, y0: 30, x1: 79, y1: 45)
        map.box(x0: 82, y0: 28, x1: 141, y1: 43)
        map.box(x0: 20, y0: 70, x1: 100, y1: 85)
        let found = map.regions()
        XCTAssertEqual(found.count, 3)
        guard found.count == 3 else { return }
        for (region, (x0, y0, x1, y1)) in zip(found, [(20.0, 30.0, 79.0, 45.0), (82, 28, 141, 43), (20, 70, 100, 85)]) {
            let (length, breadth) = (x1 - x0, y1 - y0)
            let d = length * breadth * 1.5 / (2 * (length + breadth))
            let expected = Quad(topLeft: Point(x: x0 - d, y: y0 - d), topRight: Point(x: x1 + d, y: y0 - d),
                                bottomRight: Point(x: x1 + d, y: y1 + d), bottomLeft: Point(x: x0 - d, y: y1 + d))
            XCTAssertLessThanOrEqual(Expect.cornerDistance(region.quad, expected), 1e-6, "\(region.quad) vs \(expected)")
            XCTAssertEqual(region.score, 0.9, accuracy: 1e-5)
        }
    }

    /// A 3-px-wide bar has a 2-px core, below the minimum side 3, and goes; a 4-px-wide bar
    /// (core 3) stays; a pixel and a 2 x 2 speck go.
    func testTinyRegionsAreDropped() {
        var map = DrawnTextMap(width: 80, height: 60)
        map.box(x0: 10, y0: 10, x1: 49, y1: 12)
        map.box(x0: 10, y0: 20, x1: 49, y1: 23)
        map.box(x0: 60, y0: 40, x1: 60, y1: 40)
        map.box(x0: 70, y0: 40, x1: 71, y1: 41)
        let found = map.regions()
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.quad.centre.y ?? 0, 21.5, accuracy: 1e-9)
        let grown = Expect.grown(length: 39, breadth: 3)
        XCTAssertEqual(found.first.map { $0.quad.topLeft.distance(to: $0.quad.bottomLeft) } ?? 0, grown.breadth, accuracy: 1e-9)
    }

    /// A region whose mean probability is 0.5 (above the 0.3 threshold, below the 0.6 box
    /// threshold) goes; the same at 0.65 stays with that score.
    func testLowScoreRegionIsDropped() {
        var map = DrawnTextMap(width: 100, height: 60)
        map.box(x0: 10, y0: 10, x1: 69, y1: 25, value: 0.5)
        XCTAssertEqual(map.regions(), [])
        map.box(x0: 10, y0: 10, x1: 69, y1: 25, value: 0.65)
        let kept = map.regions()
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(kept.first?.score ?? 0, 0.65, accuracy: 1e-6)
        var options = TextRegionOptions()
        options.boxThreshold = 0.66
        XCTAssertEqual(map.regions(options), [])
    }

    func testEmptyMaps() {
        XCTAssertEqual(DrawnTextMap(width: 50, height: 40).regions(), [])
        XCTAssertEqual(DrawnTextMap(width: 0, height: 0).regions(), [])
        // The threshold is strict: a map at exactly 0.3 has no text.
        XCTAssertEqual(DrawnTextMap(width: 50, height: 40, fill: 0.3).regions(), [])
    }

    /// A map of ones is one region: the 99 x 79 rectangle through the outer pixels' centres,
    /// grown by d = 99 x 79 x 1.5 / 356 beyond the map.
    func testMapOfOnes() {
        let found = DrawnTextMap(width: 100, height: 80, fill: 1).regions()
        XCTAssertEqual(found.count, 1)
        let d = 99.0 * 79 * 1.5 / 356
        let expected = Quad(topLeft: Point(x: -d, y: -d), topRight: Point(x: 99 + d, y: -d),
                            bottomRight: Point(x: 99 + d, y: 79 + d), bottomLeft: Point(x: -d, y: 79 + d))
        XCTAssertLessThanOrEqual(Expect.cornerDistance(found[0].quad, expected), 1e-9)
        XCTAssertEqual(found[0].score, 1)
    }

    /// An L: its rectangle is the brute-force smallest one round its pixel centres; it fills
    /// little of it, so the default box threshold drops it and a lower one keeps it, scored by
    /// the share of pixel centres inside the rectangle that belong to the L.
    func testLShapedRegion() {
        var map = DrawnTextMap(width: 140, height: 120)
        map.box(x0: 10, y0: 10, x1: 109, y1: 29, value: 1)
        map.box(x0: 10, y0: 30, x1: 29, y1: 89, value: 1)
        XCTAssertEqual(map.regions(), [])
        var options = TextRegionOptions()
        options.boxThreshold = 0.3
        let found = map.regions(options)
        XCTAssertEqual(found.count, 1)
        guard let region = found.first else { return }
        let outline = [Point(x: 10, y: 10), Point(x: 109, y: 10), Point(x: 109, y: 29), Point(x: 29, y: 89), Point(x: 10, y: 89)]
        let core = Expect.bruteForceRectangle(outline)
        var inside = 0, ones = 0
        for y in 0..<map.height {
            for x in 0..<map.width where core.contains(Point(x: Double(x), y: Double(y)), tolerance: 1e-3) {
                inside += 1
                ones += map.values[y * map.width + x] == 1 ? 1 : 0
            }
        }
        XCTAssertEqual(Double(region.score), Double(ones) / Double(inside), accuracy: 1e-4)
        let d = core.length * core.breadth * 1.5 / (2 * (core.length + core.breadth))
        let grown = core.corners(grownBy: d)
        XCTAssertLessThanOrEqual(Expect.cornerSetDistance(region.quad.corners, grown), 1e-3, "\(region.quad) vs \(grown)")
        XCTAssertGreaterThanOrEqual(region.quad.topLeft.distance(to: region.quad.topRight),
                                    region.quad.topLeft.distance(to: region.quad.bottomLeft) - 1e-9)
    }

    /// `scaled` keeps pixel centres: map pixel 0's centre lands on the centre of the photo's
    /// first 4 x 4 block, (1.5, 1.5).
    func testScaledToThePhoto() {
        let region = TextRegion(quad: Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 10, y: 0),
                                           bottomRight: Point(x: 10, y: 2), bottomLeft: Point(x: 0, y: 2)), score: 0.8)
        let photo = region.scaled(x: 4, y: 4)
        XCTAssertEqual(photo.quad.topLeft, Point(x: 1.5, y: 1.5))
        XCTAssertEqual(photo.quad.bottomRight, Point(x: 41.5, y: 9.5))
        XCTAssertEqual(photo.score, 0.8)
    }

    /// Regions are numbered in the raster order of their first pixel and only the first
    /// `maximumRegions` are looked at; diagonal neighbours join (8-connectivity), and a U joins
    /// its arms only at its bottom row.
    func testConnectivityAndRegionLimit() {
        var map = DrawnTextMap(width: 60, height: 40)
        map.box(x0: 5, y0: 5, x1: 5, y1: 5)
        map.box(x0: 6, y0: 6, x1: 6, y1: 6)
        map.box(x0: 20, y0: 2, x1: 21, y1: 30)
        map.box(x0: 30, y0: 2, x1: 31, y1: 30)
        map.box(x0: 20, y0: 31, x1: 31, y1: 32)
        map.box(x0: 50, y0: 1, x1: 50, y1: 1)
        map.values.withUnsafeBufferPointer { values in
            let all = TextRegionOutlines(map: values, width: 60, height: 40, threshold: 0.3, limit: 10)
            XCTAssertEqual(all.ranges.count, 3)
            // In raster order of the first pixel: the dot at row 1, the U from row 2, the pair.
            XCTAssertEqual(all.ranges.map(\.count), [1, 29 * 4 + 2 * 2, 2])
            XCTAssertEqual(all.points[all.ranges[0]], [Point(x: 50, y: 1)])
            XCTAssertEqual(all.points[all.ranges[2]], [Point(x: 5, y: 5), Point(x: 6, y: 6)])
            let first = TextRegionOutlines(map: values, width: 60, height: 40, threshold: 0.3, limit: 2)
            XCTAssertEqual(first.ranges.count, 2)
            XCTAssertEqual(first.points[first.ranges[0]], [Point(x: 50, y: 1)])
            XCTAssertEqual(TextRegionOutlines(map: values, width: 60, height: 40, threshold: 0.3, limit: 0).ranges.count, 0)
        }
    }
}

extension ClosedRange<Double> {
    func contains(_ x: Double, within tolerance: Double) -> Bool { x >= lowerBound - tolerance && x <= upperBound + tolerance }
}

/// The geometry pieces on random point sets, against slow obvious versions.
final class TextRegionGeometryTests: XCTestCase {
    struct Random {
        var state: UInt64
        mutating func unit() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    func randomSets() -> [[Point]] {
        var random = Random(state: 7)
        return (0..<300).map { k in
            let count = 3 + Int(random.unit() * 40)
            // Every third set on an integer grid: collinear points and ties, as pixel outlines.
            return (0..<count).map { _ in
                let p = Point(x: random.unit() * 50, y: random.unit() * 30)
                return k % 3 == 0 ? Point(x: p.x.rounded(), y: p.y.rounded()) : p
            }
        }
    }

    func testHullContainsEveryPointClockwise() {
        for points in randomSets() {
            let hull = ConvexHull.hull(points)
            guard hull.count >= 3 else { continue }
            XCTAssertGreaterThan(ConvexHull.area(hull), 0)
            for i in hull.indices {
                let a = hull[i], b = hull[(i + 1) % hull.count], c = hull[(i + 2) % hull.count]
                XCTAssertGreaterThan((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x), 0, "a strict turn at every corner")
                for p in points {
                    XCTAssertGreaterThanOrEqual((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x), -1e-9)
                }
            }
            XCTAssertTrue(hull.allSatisfy { points.contains($0) })
        }
    }

    /// The calipers find the area that trying every hull edge with a full scan finds.
    func testMinimumAreaRectangleMatchesEveryEdgeTried() {
        for points in randomSets() {
            let hull = ConvexHull.hull(points)
            guard let rectangle = MinimumAreaRectangle(hull: hull) else {
                XCTAssertLessThan(hull.count, 3)
                continue
            }
            var best = Double.infinity
            for i in hull.indices {
                let d = hull[(i + 1) % hull.count] - hull[i]
                let u = d * (1 / d.length), v = Point(x: -u.y, y: u.x)
                let a = hull.map { $0.x * u.x + $0.y * u.y }, b = hull.map { $0.x * v.x + $0.y * v.y }
                best = min(best, (a.max()! - a.min()!) * (b.max()! - b.min()!))
            }
            XCTAssertEqual(rectangle.area, best, accuracy: 1e-9 * best)
            XCTAssertEqual(ConvexHull.area(rectangle.corners), best, accuracy: 1e-6 * best, "corners clockwise on screen")
            // Every point inside the rectangle.
            for p in points {
                for i in 0..<4 {
                    let a = rectangle.corners[i], b = rectangle.corners[(i + 1) % 4]
                    XCTAssertGreaterThanOrEqual((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x), -1e-6)
                }
            }
        }
    }

    /// Each grown edge lies `d` outside the original one.
    func testOffsetPushesEveryEdgeOut() {
        for points in randomSets() {
            let hull = ConvexHull.hull(points)
            guard hull.count >= 3 else { continue }
            let grown = ConvexOffset.offset(hull, by: 2.5)
            for i in hull.indices {
                let a = hull[i], b = hull[(i + 1) % hull.count], p = grown[i], q = grown[(i + 1) % hull.count]
                let u = (b - a) * (1 / (b - a).length)
                for r in [p, q] {
                    XCTAssertEqual(-(u.x * (r.y - a.y) - u.y * (r.x - a.x)), 2.5, accuracy: 1e-6)
                }
            }
        }
        let square = [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10)]
        XCTAssertEqual(ConvexOffset.offset(square, by: 2),
                       [Point(x: -2, y: -2), Point(x: 12, y: -2), Point(x: 12, y: 12), Point(x: -2, y: 12)])
    }

    /// With integer corners on pixel centres (no truncation; sides at 0° and 45° whose line
    /// pixels lie on them), the box score is the plain mean over the pixel centres inside: on a
    /// ramp (value = x + 100 y), an axis-aligned box's centre value; over a tilted square, the
    /// pixels counted one by one. (Tilted sides: TextRegionFixtureTests, against OpenCV.)
    func testBoxScoreOnIntegerCorners() {
        let width = 40, height = 30
        let ramp = (0..<height).flatMap { y in (0..<width).map { Float($0 + 100 * y) } }
        let tilted = [Point(x: 20, y: 3), Point(x: 32, y: 15), Point(x: 20, y: 27), Point(x: 8, y: 15)]
        ramp.withUnsafeBufferPointer { map in
            let box = [Point(x: 5, y: 4), Point(x: 15, y: 4), Point(x: 15, y: 10), Point(x: 5, y: 10)]
            XCTAssertEqual(TextBoxScore.mean(of: map, width: width, height: height, corners: box)!, 10 + 700, accuracy: 1e-3)
            var sum = 0.0, count = 0.0
            for y in 0..<height {
                for x in 0..<width where abs(Double(x) - 20) + abs(Double(y) - 15) <= 12 {
                    sum += Double(ramp[y * width + x])
                    count += 1
                }
            }
            XCTAssertEqual(TextBoxScore.mean(of: map, width: width, height: height, corners: tilted)!, sum / count, accuracy: 1e-3)
            let outside = [Point(x: 50, y: 4), Point(x: 60, y: 4), Point(x: 60, y: 10), Point(x: 50, y: 10)]
            XCTAssertNil(TextBoxScore.mean(of: map, width: width, height: height, corners: outside))
        }
    }
}

/// The decoder against tools/make_text_region_fixtures.py: OpenCV's contours and minimum-area
/// rectangles with PaddleOCR's score and unclip steps, on three maps (tilted blurred bars,
/// flat-topped blobs, a page of words over speckle noise). The same boxes, corners within
/// `cornerTolerance` (any order: the reference keeps cv2.boxPoints's), scores within
/// `scoreTolerance`. Measured: corners within 7e-5 px (OpenCV's float32), scores within 1e-6.
final class TextRegionFixtureTests: XCTestCase {
    static let cornerTolerance = 0.01
    static let scoreTolerance = 1e-4

    func testMatchesOpenCVReference() throws {
        let root = Fixtures.root.appendingPathComponent("text-regions")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("boxes.json"))) as! [String: Any]
        var options = TextRegionOptions()
        options.threshold = Float(json["threshold"] as! Double)
        options.boxThreshold = Float(json["box_threshold"] as! Double)
        options.unclipRatio = json["unclip_ratio"] as! Double
        options.minimumSide = json["minimum_side"] as! Double
        XCTAssertEqual(options, TextRegionOptions(), "the reference uses the defaults")
        var boxes = 0, worstCorner = 0.0, worstScore = 0.0
        for entry in json["maps"] as! [[String: Any]] {
            let file = entry["file"] as! String
            let image = try ImageIO.read(path: root.appendingPathComponent(file).path)
            let width = entry["width"] as! Int, height = entry["height"] as! Int
            XCTAssertEqual(image.width, width)
            XCTAssertEqual(image.height, height)
            // The PNG's 8-bit values over 255, as the reference reads them.
            let map = image.rgb[0..<(width * height)].map { Float(UInt8(($0 * 255).rounded())) / 255 }
            let found = TextRegionDecoder.regions(probabilities: map, width: width, height: height, options: options)
            let expected = (entry["boxes"] as! [[String: Any]]).map { box in
                (corners: (box["corners"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) }, score: box["score"] as! Double)
            }
            XCTAssertEqual(found.count, expected.count, file)
            for box in expected {
                let centre = Point.mean(box.corners)
                guard let match = found.min(by: { $0.quad.centre.distance(to: centre) < $1.quad.centre.distance(to: centre) }) else { continue }
                let corner = TextRegionExpectation.cornerSetDistance(box.corners, match.quad.corners)
                let score = abs(Double(match.score) - box.score)
                XCTAssertLessThanOrEqual(corner, Self.cornerTolerance, "\(file): \(match.quad) vs \(box.corners)")
                XCTAssertLessThanOrEqual(score, Self.scoreTolerance, "\(file): score \(match.score) vs \(box.score)")
                worstCorner = max(worstCorner, corner)
                worstScore = max(worstScore, score)
                boxes += 1
            }
        }
        XCTAssertGreaterThanOrEqual(boxes, 30)
        print("text regions vs OpenCV reference: \(boxes) boxes, worst corner \(worstCorner) px, worst score \(worstScore)")
    }
}

/// How long a page-sized map takes (printed, not asserted: the figure is in
/// TextRegionDecoder's documentation).
final class TextRegionTimingTests: XCTestCase {
    /// 960 x 960 with 200 text lines in 10 columns and 20 rows, 60-80 x 12-20 px, tilted up to
    /// ±5°, values 0.85-0.95 with a soft 0.5 rim.
    func testDecodeTime() {
        var map = DrawnTextMap(width: 960, height: 960)
        var random = TextRegionGeometryTests.Random(state: 3)
        for row in 0..<20 {
            for column in 0..<10 {
                let centre = Point(x: 48 + 96 * Double(column), y: 24 + 48 * Double(row))
                let length = 60 + 20 * random.unit(), breadth = 12 + 8 * random.unit(), degrees = -5 + 10 * random.unit()
                map.rectangle(centre: centre, length: length + 2, breadth: breadth + 2, degrees: degrees, value: 0.5)
                map.rectangle(centre: centre, length: length, breadth: breadth, degrees: degrees, value: Float(0.85 + 0.1 * random.unit()))
            }
        }
        var found: [TextRegion] = []
        let seconds = OpHarness.fastestSeconds(of: 10) {
            found = map.regions()
        }
        XCTAssertEqual(found.count, 200)
        // Reading order: row by row, left to right.
        XCTAssertEqual(found.map { Int($0.quad.centre.y / 48) * 10 + Int($0.quad.centre.x / 96) }, Array(0..<200))
        print(String(format: "text regions: 960 x 960 map, %d regions decoded in %.2f ms (fastest of 10)", found.count, seconds * 1000))
    }
}
