import Foundation
import XCTest
@testable import GPUStyle

/// The confidence is a measured chance of being right (`DetectConfidence`).
final class DetectConfidenceTests: XCTestCase {
    func testTablesAreNonDecreasingProbabilities() {
        for table in [DetectConfidence.first, DetectConfidence.later] {
            var previous = -1.0
            for score in stride(from: 0.0, through: 1.0, by: 0.001) {
                let p = table(score)
                XCTAssertTrue((0...1).contains(p), "\(score) -> \(p)")
                XCTAssertGreaterThanOrEqual(p, previous, "\(score)")
                previous = p
            }
            for knot in table.knots { XCTAssertEqual(table(knot.score), knot.probability, accuracy: 1e-12) }
        }
    }

    /// The first keeps its place, the others are capped at its confidence and sorted best first
    /// (equal ones in their order).
    func testRankedKeepsTheFirstAndSortsTheRest() {
        let ranked = DetectConfidence.ranked([0.7, 0.8, 1.0, 0.95, 0.8])
        XCTAssertEqual(ranked.map(\.index), [0, 2, 3, 1, 4])
        XCTAssertEqual(Double(ranked[0].confidence), DetectConfidence.first(0.7), accuracy: 1e-6)
        XCTAssertEqual(ranked[1].confidence, ranked[0].confidence, "a later 1.0 is capped at the first's")
        XCTAssertEqual(Double(ranked[3].confidence), DetectConfidence.later(0.8), accuracy: 1e-6)
        XCTAssertTrue(DetectConfidence.ranked([]).isEmpty)
    }

    /// Every observation on the committed scenes (`--maximum-observations 0`), as measured with
    /// tools/confidence_curve.py when the tables were fitted: the first observation was right on
    /// 30 of the 39 positives that gave one, at 0.62-0.97 (the nine wrong ones 0.60-0.83: the
    /// tables cannot tell those apart), and 266 of the 272 later observations were wrong, 2 of
    /// them above 0.5 (0.57, 0.86) and 256 at most 0.1; the raw edge
    /// score put all 266 above 0.5. The negatives gave none. The first observations' mean
    /// confidence was 0.76 against 0.77 right, the later ones' 0.032 against 0.022.
    func testCommittedScenesSeparateRightFromWrong() throws {
        let folder = Fixtures.root.appendingPathComponent("rectangles")
        let scenes = try JSONDecoder().decode([RectangleDetectionTests.Scene].self,
                                              from: Data(contentsOf: folder.appendingPathComponent("scenes.json")))
        var options = RectangleDetectionOptions()
        options.maximumObservations = 0
        let detector = RectangleDetector()
        var firstRight: [Float] = [], firstAll: [Float] = [], later: [(confidence: Float, right: Bool)] = []
        for scene in scenes {
            let image = try ImageIO.read(path: folder.appendingPathComponent(scene.file).path)
            let observations = try detector.detect(image, options: options)
            guard let truth = scene.quad else {
                for o in observations { XCTAssertLessThanOrEqual(o.confidence, 0.5, "\(scene.file): a negative's observation") }
                continue
            }
            var matched = false
            for (k, o) in observations.enumerated() {
                if k > 0 { XCTAssertLessThanOrEqual(o.confidence, observations[k - 1].confidence, "\(scene.file): best first") }
                let right = !matched && RectangleDetectionTests.cornerError(o.quad, truth) <= 10
                matched = matched || right
                if k == 0 {
                    firstAll.append(o.confidence)
                    if right { firstRight.append(o.confidence) }
                } else {
                    later.append((o.confidence, right))
                }
            }
        }
        XCTAssertGreaterThanOrEqual(firstRight.count, 28, "right first observations")
        XCTAssertGreaterThanOrEqual(firstRight.min() ?? 0, 0.6, "a right first observation")
        let wrongLater = later.filter { !$0.right }.map(\.confidence)
        XCTAssertGreaterThan(wrongLater.count, 150)
        XCTAssertLessThanOrEqual(wrongLater.filter { $0 > 0.5 }.count, 3, "wrong later observations above 0.5")
        XCTAssertGreaterThanOrEqual(wrongLater.filter { $0 <= 0.1 }.count, wrongLater.count * 9 / 10, "wrong later observations at most 0.1")
        // Calibrated on the whole: the first observations' mean confidence near their share right,
        // and the later ones' near theirs (6 of 272).
        let firstMean = Double(firstAll.reduce(0, +)) / Double(max(firstAll.count, 1))
        XCTAssertEqual(firstMean, Double(firstRight.count) / Double(max(firstAll.count, 1)), accuracy: 0.15)
        let laterMean = Double(later.map(\.confidence).reduce(0, +)) / Double(max(later.count, 1))
        XCTAssertEqual(laterMean, Double(later.filter(\.right).count) / Double(max(later.count, 1)), accuracy: 0.03)
    }
}
