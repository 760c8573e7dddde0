import XCTest
@testable import GPUStyle

/// The corner walk (`DetectCorners`): quads put together from corners across all lines, not only
/// within one line group.
final class DetectCornersTests: XCTestCase {
    struct Scene: Decodable {
        let file: String
        let quad: [[Double]]
    }

    /// Whether a line runs along side i of a quad (corner i to corner i + 1), in working-map
    /// coordinates.
    static func runsAlong(_ line: DetectedLine, side i: Int, corners: [Point]) -> Bool {
        [corners[i], corners[(i + 1) % 4]].allSatisfy { abs($0.x * line.cosTheta + $0.y * line.sinTheta - line.rho) < 2.5 }
    }

    static func matches(_ c: QuadCandidate, _ corners: [Point], within tolerance: Double) -> Bool {
        (0..<4).contains { r in (0..<4).allSatisfy { c.quad.corners[($0 + r) % 4].distance(to: corners[$0]) < tolerance } }
    }

    /// A generated scene (Fixtures/rectangles-corners/NOTICE): a picture on a brick wall whose
    /// four sides rank below the mortar's lines in every group's shortlist, so that quads formed
    /// within a group (`DetectQuads`) cannot find it; the regions' longer lists
    /// (`cornerQuotaFactor`) hold all four, and the walk joins them.
    func testAPictureOnBricksIsFoundFromItsCorners() throws {
        let folder = Fixtures.root.appendingPathComponent("rectangles-corners")
        let scene = try XCTUnwrap(try JSONDecoder().decode([Scene].self, from: Data(contentsOf: folder.appendingPathComponent("scenes.json"))).first)
        let image = try ImageIO.read(path: folder.appendingPathComponent(scene.file).path)
        let truth = scene.quad.map { Point(x: $0[0], y: $0[1]) }
        let map = DetectEdges.run(image)
        let corners = truth.map { map.toWorking($0) }
        let options = RectangleDetectionOptions()
        let groups = DetectLines.groups(map, minimumVotes: DetectLines.minimumVotes(map, options: options))
        for (k, members) in groups.members.enumerated() {
            let held = (0..<4).filter { i in members.contains { Self.runsAlong(groups.lines[$0], side: i, corners: corners) } }
            XCTAssertLessThan(held.count, 4, "group \(k) holds every side: the scene no longer tests the walk")
        }
        for i in 0..<4 {
            XCTAssertTrue(groups.lines.contains { Self.runsAlong($0, side: i, corners: corners) }, "side \(i) has a line")
        }
        XCTAssertTrue(DetectCorners.run(groups.lines, map: map, options: options).contains { Self.matches($0, corners, within: 2.5) })
        // The detector returns it, refined to the image's edges (blur 0.6 px, noise, JPEG).
        let found = try XCTUnwrap(try RectangleDetector().detect(image).first)
        let errors = zip(found.quad.corners, truth).map { $0.distance(to: $1) }
        XCTAssertLessThan(errors.reduce(0, +) / 4, 1.5, "\(errors)")
        XCTAssertLessThan(errors.max()!, 4, "\(errors)")
    }

    /// A hand over the top-left corner: two sides and three corners fix all four lines, and the
    /// hidden corner is where the top and left sides' lines meet.
    func testAHiddenCornerIsRecovered() throws {
        let truth = Quad(topLeft: Point(x: 180.3, y: 120.6), topRight: Point(x: 451.8, y: 141.2),
                         bottomRight: Point(x: 430.4, y: 352.7), bottomLeft: Point(x: 168.9, y: 331.5))
        var image = SyntheticScene.render(width: 640, height: 480, quad: truth)
        let wall = SyntheticScene.render(width: 640, height: 480, quad: nil)
        let plane = image.width * image.height
        for y in 0..<image.height {
            for x in 0..<image.width where Point(x: Double(x), y: Double(y)).distance(to: truth.corners[0]) < 50 {
                for c in 0..<3 { image.rgb[c * plane + y * image.width + x] = wall.rgb[c * plane + y * image.width + x] }
            }
        }
        let map = DetectEdges.run(image)
        let corners = truth.corners.map { map.toWorking($0) }
        let options = RectangleDetectionOptions()
        let groups = DetectLines.groups(map, minimumVotes: 14)
        let found = DetectCorners.findCorners(groups.lines, map: map, minimumSide: DetectQuads.minimumSide(map, options: options),
                                              options: options)
        // No corner at the hidden one (its arms are on the wall)...
        let hidden = corners[0]
        XCTAssertFalse(found.contains { corner in
            guard let p = groups.lines[corner.arms.0.line].intersection(groups.lines[corner.arms.1.line]) else { return false }
            return p.distance(to: hidden) < 3
        })
        // ... yet the quad is proposed, with that corner where it was.
        XCTAssertTrue(DetectCorners.run(groups.lines, map: map, options: options).contains { Self.matches($0, corners, within: 1.5) })
    }

    /// A picture hung just under a shelf edge: its top side lies along a dark line that runs on
    /// across the wall, so its top corners are Ts, not Ls. They count as corners only where the
    /// colours say an object's corner (the wedge between the arms unlike both sides), which
    /// needs the photo; a T of the shelf line and the picture's side has wall on both sides of
    /// the stem below the line and is not one.
    func testATCornerCountsWhereTheColoursSaySo() throws {
        let truth = Quad(topLeft: Point(x: 180, y: 120), topRight: Point(x: 450, y: 120),
                         bottomRight: Point(x: 450, y: 350), bottomLeft: Point(x: 180, y: 350))
        var image = SyntheticScene.render(width: 640, height: 480, quad: truth)
        let plane = image.width * image.height
        for y in 116..<120 {
            for x in 0..<image.width { for c in 0..<3 { image.rgb[c * plane + y * image.width + x] = 0.05 } }
        }
        let map = DetectEdges.run(image)
        let corners = truth.corners.map { map.toWorking($0) }
        let groups = DetectLines.groups(map, minimumVotes: 14)
        let options = RectangleDetectionOptions()
        let minimumSide = DetectQuads.minimumSide(map, options: options)
        func corner(near q: Point, in found: [DetectCorners.Corner]) -> DetectCorners.Corner? {
            found.first { c in
                guard let p = groups.lines[c.arms.0.line].intersection(groups.lines[c.arms.1.line]) else { return false }
                return p.distance(to: q) < 2
            }
        }
        let withPhoto = DetectCorners.findCorners(groups.lines, map: map, image: image, minimumSide: minimumSide, options: options)
        let withoutPhoto = DetectCorners.findCorners(groups.lines, map: map, minimumSide: minimumSide, options: options)
        let topLeft = try XCTUnwrap(corner(near: corners[0], in: withPhoto), "the top-left T with the photo")
        XCTAssertTrue(topLeft.isT)
        XCTAssertNil(corner(near: corners[0], in: withoutPhoto), "without the photo only Ls are corners")
        XCTAssertNotNil(corner(near: corners[3], in: withoutPhoto), "the bottom corners are Ls")
        XCTAssertTrue(DetectCorners.run(groups.lines, map: map, image: image, options: options)
            .contains { Self.matches($0, corners, within: 1.5) })
    }

    /// A line set is the same whatever corner or direction the walk came from.
    func testLineSetsAreNormalised() {
        let a = DetectCorners.LineSet(3, 9, 5, 1), b = DetectCorners.LineSet(1, 5, 9, 3), c = DetectCorners.LineSet(9, 3, 1, 5)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, c)
        XCTAssertEqual([a.a, a.b, a.c, a.d], [1, 5, 3, 9])
        XCTAssertFalse(DetectCorners.LineSet(1, 2, 2, 3).isValid)
    }
}
