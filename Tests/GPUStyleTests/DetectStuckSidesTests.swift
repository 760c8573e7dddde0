import XCTest
@testable import GPUStyle

/// Moving out a side left on a frame's inner edge (`DetectStuckSides`).
final class DetectStuckSidesTests: XCTestCase {
    struct Scene: Decodable {
        let file: String
        let quad: [[Double]]
    }

    /// Live seed 3's frame 90 (Fixtures/rectangles-frames/NOTICE): a dark frame with a white
    /// matte before a cat's face. The pick holds the matte's right edge: beyond it the moulding,
    /// then the cat's dark eye, no nearer the wall's colours around the other sides than the
    /// moulding is. The side must still move out to where the moulding ends.
    func testASideBeforeADarkWallMovesOutWhereTheMouldingEnds() throws {
        let folder = Fixtures.root.appendingPathComponent("rectangles-frames")
        let scene = try XCTUnwrap(try JSONDecoder().decode([Scene].self, from: Data(contentsOf: folder.appendingPathComponent("scenes.json"))).first)
        let image = try ImageIO.read(path: folder.appendingPathComponent(scene.file).path)
        let truth = scene.quad.map { Point(x: $0[0], y: $0[1]) }
        let (observations, trace) = try RectangleDetector().detectTraced(image)
        // The scene still tests the stage: the pick has a side well inside the outline.
        let pick = try XCTUnwrap(trace.picks.first)
        XCTAssertGreaterThan(Self.errors(pick.corners, truth).max()!, 10, "the pick is already the outline")
        let found = try XCTUnwrap(observations.first)
        let errors = Self.errors(found.quad.corners, truth)
        XCTAssertLessThan(errors.reduce(0, +) / 4, 1.0, "\(errors)")
        XCTAssertLessThan(errors.max()!, 2.0, "\(errors)")
    }

    /// Corner distances after the best cyclic match (the trace keeps the order as formed).
    static func errors(_ corners: [Point], _ truth: [Point]) -> [Double] {
        var best: [Double] = []
        for r in 0..<4 {
            for step in [1, 3] {
                let errors: [Double] = (0..<4).map { k in corners[(r + step * k) % 4].distance(to: truth[k]) }
                if best.isEmpty || errors.reduce(0, +) < best.reduce(0, +) { best = errors }
            }
        }
        return best
    }
}
