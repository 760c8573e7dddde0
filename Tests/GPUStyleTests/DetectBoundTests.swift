import Foundation
import XCTest
@testable import GPUStyle

/// The detector's bounds on candidates and picks: a scene of many parallel lines (a
/// checkerboard, every gate open) returns, with at most `maximumPicks` observations; ordinary
/// scenes are below both bounds (checked by comparing outputs on the committed scenes, see the
/// commit that introduced them).
final class DetectBoundTests: XCTestCase {
    /// 1280x720, 40-pixel squares.
    static func checkerboard(width: Int = 1280, height: Int = 720, square: Int = 40) -> Image {
        let plane = (0..<(width * height)).map { i -> Float in ((i % width) / square + (i / width) / square) % 2 == 0 ? 1 : 0 }
        return Image(width: width, height: height, rgb: plane + plane + plane, alpha: nil)
    }

    /// No timing asserted (speed is measured by benchmarks): this only has to return. Before
    /// the bounds it ran for minutes and returned 16,822 observations.
    func testCheckerboardWithEveryGateOpenIsBounded() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let board = scratch.path("checkerboard.png")
        try ImageIO.writePNG(Self.checkerboard(), to: board)
        let result = try TestProcess.gpustyle(["detect", "--json", "--minimum-aspect-ratio", "0", "--maximum-aspect-ratio", "1",
                                               "--quadrature-tolerance", "45", "--minimum-size", "0", "--maximum-observations", "0", board])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let observations = try XCTUnwrap(object["observations"] as? [[String: Any]])
        XCTAssertGreaterThan(observations.count, 0)
        XCTAssertLessThanOrEqual(observations.count, 256, "RectangleDetector.maximumPicks")
    }

    /// The strongest candidates by bound are kept, in their original order; ties go to the
    /// earlier one.
    func testStrongestKeepsTheBestInOrder() {
        func candidate(_ score: Double) -> QuadCandidate {
            let quad = Quad(corners: [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10)])
            return QuadCandidate(quad: quad, lines: [0, 1, 2, 3], coverage: [score, score, score, score])
        }
        let scores = [0.5, 0.9, 0.7, 0.9, 0.6, 0.8]
        let kept = CandidatePool.strongest(scores.map(candidate), limit: 3) { $0.score }
        XCTAssertEqual(kept.map(\.score), [0.9, 0.9, 0.8])
        let tie = CandidatePool.strongest(scores.map(candidate), limit: 2) { _ in 1 }
        XCTAssertEqual(tie.map(\.score), [0.5, 0.9], "equal bounds: the earlier ones")
        XCTAssertEqual(CandidatePool.strongest(scores.map(candidate), limit: 10) { $0.score }.count, 6)
    }
}
