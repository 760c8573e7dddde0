import Foundation
import XCTest
@testable import GPUStyle

/// The detector on scenes with known ground truth (tools/make_rectangle_scenes.py: real photos
/// warped onto real backgrounds with frames, blur, noise, JPEG, shadows, occlusion).
final class RectangleDetectionTests: XCTestCase {
    struct Scene: Decodable {
        let file: String
        let quad: [[Double]]?
    }

    struct Score {
        var positives = 0, detected = 0, negatives = 0, falsePositives = 0
        var errors: [Double] = []
        var rate: Double { Double(detected) / Double(max(positives, 1)) }
        var falsePositiveRate: Double { Double(falsePositives) / Double(max(negatives, 1)) }
        var meanError: Double { errors.reduce(0, +) / Double(max(errors.count, 1)) }
    }

    /// Largest corner distance between a detection and the truth (corners in the same order).
    static func cornerError(_ quad: Quad, _ truth: [[Double]]) -> Double {
        zip(quad.corners, truth).map { $0.distance(to: Point(x: $1[0], y: $1[1])) }.max()!
    }

    static func score(tolerance: Double = 10) throws -> Score {
        let folder = Fixtures.root.appendingPathComponent("rectangles")
        let scenes = try JSONDecoder().decode([Scene].self, from: Data(contentsOf: folder.appendingPathComponent("scenes.json")))
        let detector = RectangleDetector()
        var score = Score()
        for scene in scenes {
            let image = try ImageIO.read(path: folder.appendingPathComponent(scene.file).path)
            let found = try detector.detect(image).first
            if let truth = scene.quad {
                score.positives += 1
                if let found {
                    let error = cornerError(found.quad, truth)
                    if error <= tolerance {
                        score.detected += 1
                        score.errors += zip(found.quad.corners, truth).map { $0.distance(to: Point(x: $1[0], y: $1[1])) }
                    }
                }
            } else {
                score.negatives += 1
                if found != nil { score.falsePositives += 1 }
            }
        }
        return score
    }

    /// Regression floors for the committed set. The targets (>= 95% detected) are not
    /// met yet; these floors are what the detector achieves now, so a regression fails CI.
    func testCommittedScenes() throws {
        let score = try RectangleDetectionTests.score()
        XCTAssertEqual(score.positives, 40)
        XCTAssertEqual(score.negatives, 10)
        print(String(format: "rectangles: detected %.1f%%, false positives %.1f%%, mean corner error %.3f px",
                     100 * score.rate, 100 * score.falsePositiveRate, score.meanError))
        XCTAssertGreaterThanOrEqual(score.rate, RectangleDetectionTests.detectionFloor)
        XCTAssertLessThanOrEqual(score.falsePositiveRate, 0.05)
        XCTAssertLessThanOrEqual(score.meanError, 1.5)
    }

    static let detectionFloor = 0.90

    /// A rectangle drawn here with exact area coverage (16x16 supersampling) on a textured
    /// background: corners must come back within half a pixel.
    func testSyntheticQuadSubpixelCorners() throws {
        let truth = Quad(topLeft: Point(x: 180.3, y: 120.6), topRight: Point(x: 451.8, y: 141.2),
                         bottomRight: Point(x: 430.4, y: 352.7), bottomLeft: Point(x: 168.9, y: 331.5))
        let image = SyntheticScene.render(width: 640, height: 480, quad: truth)
        let found = try XCTUnwrap(try RectangleDetector().detect(image).first)
        for (a, b) in zip(found.quad.corners, truth.corners) {
            XCTAssertLessThan(a.distance(to: b), 0.5, "corner \(a) vs truth \(b)")
        }
        XCTAssertGreaterThan(found.confidence, 0.8)
    }

    /// All observations (limit 0) on a busy scene: picks that grow and refine into the same
    /// outline are reported once (this scene gave 41 observations, 86 near-duplicate pairs), and
    /// the single best one is among them.
    func testAllObservationsAreDistinct() throws {
        let folder = Fixtures.root.appendingPathComponent("rectangles")
        let image = try ImageIO.read(path: folder.appendingPathComponent("030.jpg").path)
        var options = RectangleDetectionOptions()
        options.maximumObservations = 0
        let all = try RectangleDetector().detect(image, options: options)
        let best = try XCTUnwrap(try RectangleDetector().detect(image).first)
        XCTAssertFalse(all.isEmpty)
        let tolerance = 0.05 * Double(min(image.width, image.height))
        for i in all.indices {
            for j in all.indices where j < i {
                let same = zip(all[i].quad.corners, all[j].quad.corners).allSatisfy { $0.distance(to: $1) < tolerance }
                XCTAssertFalse(same, "observations \(j) and \(i) are the same outline")
            }
        }
        XCTAssertTrue(all.contains { zip($0.quad.corners, best.quad.corners).allSatisfy { $0.distance(to: $1) < 0.5 } },
                      "the single best observation is among all of them")
    }

    func testNothingOnAPlainTexture() throws {
        let image = SyntheticScene.render(width: 640, height: 480, quad: nil)
        XCTAssertTrue(try RectangleDetector().detect(image).isEmpty)
    }

    func testOptionsAreRespected() throws {
        let truth = Quad(topLeft: Point(x: 100, y: 100), topRight: Point(x: 540, y: 100),
                         bottomRight: Point(x: 540, y: 180), bottomLeft: Point(x: 100, y: 180))
        let image = SyntheticScene.render(width: 640, height: 480, quad: truth)
        // Aspect 80/440 = 0.18 is below Vision's default minimum of 0.5, and the 80-pixel short
        // side below the default minimum size (0.2 of 480 = 96 pixels).
        XCTAssertTrue(try RectangleDetector().detect(image).isEmpty)
        var options = RectangleDetectionOptions()
        options.minimumAspectRatio = 0.1
        XCTAssertTrue(try RectangleDetector().detect(image, options: options).isEmpty, "still too small")
        options.minimumSize = 0.1
        XCTAssertEqual(try RectangleDetector().detect(image, options: options).count, 1)
        options.minimumConfidence = 1.01
        XCTAssertThrowsError(try RectangleDetector().detect(image, options: options))
    }
}

/// Test scenes drawn in Swift: a mid-grey textured wall and, optionally, a bright picture with
/// exact anti-aliased edges.
enum SyntheticScene {
    static func render(width: Int, height: Int, quad: Quad?) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        var state: UInt64 = 12345
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Float(state >> 40) / Float(1 << 24) * 0.06
                let wall = 0.35 + 0.05 * sin(Float(x) * 0.05) + noise
                var coverage: Float = 0
                if let quad { coverage = self.coverage(quad, x, y) }
                let picture: Float = 0.85 - 0.1 * Float(y) / Float(height)
                let value = wall * (1 - coverage) + picture * coverage
                for c in 0..<3 { rgb[(c * height + y) * width + x] = value }
            }
        }
        return Image(width: width, height: height, rgb: rgb, alpha: nil)
    }

    /// Share of pixel (x, y) (centre at integers) inside the convex quad, by 16x16 sampling.
    static func coverage(_ quad: Quad, _ x: Int, _ y: Int) -> Float {
        let c = quad.corners
        let box = quad.boundingBox
        guard Double(x) + 0.5 >= box.x, Double(x) - 0.5 <= box.x + box.width,
              Double(y) + 0.5 >= box.y, Double(y) - 0.5 <= box.y + box.height else { return 0 }
        var inside = 0
        for sy in 0..<16 {
            for sx in 0..<16 {
                let p = Point(x: Double(x) - 0.5 + (Double(sx) + 0.5) / 16, y: Double(y) - 0.5 + (Double(sy) + 0.5) / 16)
                var all = true
                for i in 0..<4 {
                    let a = c[i], b = c[(i + 1) % 4]
                    if (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) < 0 { all = false; break }
                }
                if all { inside += 1 }
            }
        }
        return Float(inside) / 256
    }
}
