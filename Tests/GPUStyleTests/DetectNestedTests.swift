import XCTest
@testable import GPUStyle

/// Vision's choice among nested quads (`RectangleDetector.select`, `outermost`): the frame's
/// outline first, and the picture inside it still reported with every observation asked for.
final class DetectNestedTests: XCTestCase {
    static let outer = (x0: 120.0, x1: 520.0, y0: 80.0, y1: 400.0)
    /// The photo inside the matte, in image pixels.
    static let photo = (x0: 190.0, x1: 450.0, y0: 140.0, y1: 340.0)

    /// A dark moulding, a light matte, and a photo (a brown gradient with stripes) inside it, on
    /// a plain grey-green wall.
    static func scene() -> Image {
        var image = DrawnFrame.render(outer: outer, band: 14, matte: (0.93, 0.92, 0.88), moulding: (0.22, 0.14, 0.1)) { _, _ in
            (0.55, 0.6, 0.52)
        }
        let p = photo, plane = image.width * image.height
        for y in Int(p.y0)..<Int(p.y1) {
            for x in Int(p.x0)..<Int(p.x1) {
                let t = Float(x - Int(p.x0)) / Float(p.x1 - p.x0), stripe: Float = (y / 12) % 2 == 0 ? 0.08 : 0
                image.rgb[y * image.width + x] = 0.25 + 0.35 * t + stripe
                image.rgb[plane + y * image.width + x] = 0.18 + 0.25 * t + stripe
                image.rgb[2 * plane + y * image.width + x] = 0.12 + 0.1 * t + stripe
            }
        }
        return image
    }

    /// Corners of an axis-aligned box in pixel-centre coordinates (its pixels run x0..<x1).
    static func corners(_ b: (x0: Double, x1: Double, y0: Double, y1: Double)) -> [Point] {
        [Point(x: b.x0 - 0.5, y: b.y0 - 0.5), Point(x: b.x1 - 0.5, y: b.y0 - 0.5),
         Point(x: b.x1 - 0.5, y: b.y1 - 0.5), Point(x: b.x0 - 0.5, y: b.y1 - 0.5)]
    }

    static func isOn(_ o: RectangleObservation, _ truth: [Point]) -> Bool {
        zip(o.quad.corners, truth).allSatisfy { $0.distance(to: $1) < 2 }
    }

    struct Scene: Decodable {
        let file: String
        let quad: [[Double]]
        let inner_quad: [[Double]]
    }

    /// A generated scene of nested frames (Fixtures/rectangles-nested/NOTICE): the outer frame
    /// first, and the inner frame among every observation (its outside edge is 6-9 px outside
    /// the photo, `inner_quad`; the photo's own edge, dark on the dark inner frame, is not
    /// found). Before, a pick whose outline was already chosen was dropped, and no quad within
    /// 10 px of the photo was reported.
    func testNestedFramesGiveTheOuterFirstAndThePhotoAfter() throws {
        let folder = Fixtures.root.appendingPathComponent("rectangles-nested")
        let scene = try XCTUnwrap(try JSONDecoder().decode([Scene].self, from: Data(contentsOf: folder.appendingPathComponent("scenes.json"))).first)
        let image = try ImageIO.read(path: folder.appendingPathComponent(scene.file).path)
        let frame = scene.quad.map { Point(x: $0[0], y: $0[1]) }, photo = scene.inner_quad.map { Point(x: $0[0], y: $0[1]) }
        func isOn(_ o: RectangleObservation, _ truth: [Point], within tolerance: Double = 3) -> Bool {
            zip(o.quad.corners, truth).allSatisfy { $0.distance(to: $1) < tolerance }
        }
        let first = try XCTUnwrap(try RectangleDetector().detect(image).first)
        XCTAssertTrue(isOn(first, frame), "\(first.quad)")
        var options = RectangleDetectionOptions()
        options.maximumObservations = 0
        let all = try RectangleDetector().detect(image, options: options)
        XCTAssertTrue(all.first.map { isOn($0, frame) } ?? false, "\(all.map(\.quad))")
        XCTAssertTrue(all.dropFirst().contains { isOn($0, photo, within: 10) }, "the inner frame is not among \(all.map(\.quad))")
    }

    /// A drawn frame: the frame first, the photo after it, and every observation sorted by
    /// confidence (growing and refining change the picks' scores; the list was not re-sorted).
    func testTheFrameComesFirstAndThePictureInsideItAfter() throws {
        let image = Self.scene()
        let frame = Self.corners(Self.outer), photo = Self.corners(Self.photo)
        // Vision's default (one observation): the frame.
        let first = try XCTUnwrap(try RectangleDetector().detect(image).first)
        XCTAssertTrue(Self.isOn(first, frame), "\(first.quad)")
        // Every observation: the frame first, the photo after it, sorted by confidence.
        var options = RectangleDetectionOptions()
        options.maximumObservations = 0
        let all = try RectangleDetector().detect(image, options: options)
        XCTAssertTrue(all.first.map { Self.isOn($0, frame) } ?? false, "\(all.map(\.quad))")
        XCTAssertTrue(all.dropFirst().contains { Self.isOn($0, photo) }, "the photo is not among \(all.map(\.quad))")
        XCTAssertEqual(all.map(\.confidence), all.map(\.confidence).sorted(by: >))
    }
}
