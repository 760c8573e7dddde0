import XCTest
@testable import GPUStyle

/// Two detector stages that the committed-scene floor does not exercise on its own (they change
/// results only on held-out scenes), tested directly on a synthetic quad.
final class DetectStagesTests: XCTestCase {
    static let truth = Quad(topLeft: Point(x: 180.3, y: 120.6), topRight: Point(x: 451.8, y: 141.2),
                            bottomRight: Point(x: 430.4, y: 352.7), bottomLeft: Point(x: 168.9, y: 331.5))

    /// The quad's corners in working-map coordinates, and the map and line groups.
    func stages() -> (map: EdgeMap, lines: [DetectedLine], corners: [Point]) {
        let image = SyntheticScene.render(width: 640, height: 480, quad: Self.truth)
        let map = DetectEdges.run(image)
        let groups = DetectLines.groups(map, minimumVotes: 14)
        return (map, groups.members[0].map { groups.lines[$0] }, Self.truth.corners.map { map.toWorking($0) })
    }

    /// Index of the line running along side i of the truth (corner i to corner i + 1).
    func side(_ i: Int, in lines: [DetectedLine], corners: [Point]) -> Int? {
        let a = corners[i], b = corners[(i + 1) % 4]
        return lines.firstIndex { line in
            [a, b].allSatisfy { abs($0.x * line.cosTheta + $0.y * line.sinTheta - line.rho) < 1.5 }
        }
    }

    /// With the bottom side removed from the shortlist, ordinary quad formation cannot find the
    /// quad; completion must, from where the left and right sides' support ends.
    func testCompletionFindsAMissingFourthSide() throws {
        let (map, all, corners) = stages()
        let bottom = try XCTUnwrap(side(2, in: all, corners: corners), "the bottom side is in the global shortlist")
        var lines = all
        lines.remove(at: bottom)
        let options = RectangleDetectionOptions()
        func matches(_ c: QuadCandidate) -> Bool { zip(c.quad.corners, corners).allSatisfy { $0.distance(to: $1) < 1.5 } }
        XCTAssertFalse(DetectQuads.run(lines, map: map, options: options).contains(where: matches))
        XCTAssertTrue(DetectCompletion.run(lines, map: map, options: options).contains(where: matches))
    }

    /// A well-supported quad enclosing the pick replaces it; a weaker one does not.
    func testOutermostPrefersAWellSupportedEnclosingQuad() {
        func candidate(_ inset: Double, coverage: Double) -> QuadCandidate {
            let q = Quad(topLeft: Point(x: 100 + inset, y: 100 + inset), topRight: Point(x: 300 - inset, y: 100 + inset),
                         bottomRight: Point(x: 300 - inset, y: 250 - inset), bottomLeft: Point(x: 100 + inset, y: 250 - inset))
            return QuadCandidate(quad: q, lines: [0, 1, 2, 3], coverage: [Double](repeating: coverage, count: 4))
        }
        let detector = RectangleDetector()
        let photo = candidate(15, coverage: 1.0), matte = candidate(0, coverage: 0.95), faint = candidate(0, coverage: 0.8)
        func outermost(among candidates: [QuadCandidate]) -> QuadCandidate {
            var pool = CandidatePool(candidates, map: nil)
            return detector.outermost(photo, among: &pool)
        }
        XCTAssertEqual(outermost(among: [photo, matte]).quad.area, matte.quad.area)
        XCTAssertEqual(outermost(among: [photo, faint]).quad.area, photo.quad.area)
        // More than twice the area is another object, not this picture's outline.
        let far = QuadCandidate(quad: Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 400, y: 0),
                                           bottomRight: Point(x: 400, y: 350), bottomLeft: Point(x: 0, y: 350)),
                                lines: [0, 1, 2, 3], coverage: [1, 1, 1, 1])
        XCTAssertEqual(outermost(among: [photo, far]).quad.area, photo.quad.area)
    }

    /// `select` measures the junction term lazily; its picks must be those of ranking every
    /// candidate first (stable order by rank, near-duplicates skipped). The candidates: a real
    /// scene's (several hundred, many nearly equal), and a drawn picture with 150 rectangles cut
    /// out of it, fully covered, whose order changes once their sides' running on past the corners
    /// is measured (a version that ranked only the first batches picks differently).
    func testLazySelectionPicksWhatAFullRankingPicks() throws {
        let image = try ImageIO.read(path: Fixtures.root.appendingPathComponent("rectangles/003.jpg").path)
        let sceneMap = DetectEdges.run(image)
        let groups = DetectLines.groups(sceneMap, minimumVotes: 22)
        let sceneCandidates = groups.members.flatMap { members in
            DetectQuads.run(members.map { groups.lines[$0] }, map: sceneMap, options: RectangleDetectionOptions())
        }
        XCTAssertGreaterThan(sceneCandidates.count, 100)

        let (drawnMap, _, c) = stages()
        func at(_ u: Double, _ v: Double) -> Point {
            let top = c[0] + (c[1] - c[0]) * u, bottom = c[3] + (c[2] - c[3]) * u
            return top + (bottom - top) * v
        }
        var drawn = [QuadCandidate(quad: Quad(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3]),
                                   lines: [], coverage: [0.9, 0.9, 0.9, 0.9])]
        for k in 0..<150 {
            let u = 0.55 + 0.003 * Double(k), v = 0.9 - 0.002 * Double(k)
            drawn.append(QuadCandidate(quad: Quad(topLeft: c[0], topRight: at(u, 0), bottomRight: at(u, v), bottomLeft: at(0, v)),
                                       lines: [], coverage: [1, 1, 1, 1]))
        }

        let detector = RectangleDetector()
        for (candidates, map) in [(sceneCandidates, sceneMap), (drawn, drawnMap)] {
            let shortSide = Double(min(map.width, map.height))
            var measured = candidates
            for k in measured.indices { measured[k].overshoot = DetectJunctions.overshoot(measured[k].quad, map: map) }
            var pool = CandidatePool(measured, map: nil)
            let ranked = measured.sorted { detector.rank($0) > detector.rank($1) }
            for limit in [1, 2, 5] {
                var expected: [QuadCandidate] = []
                for candidate in ranked where expected.count < limit {
                    let pick = detector.outermost(candidate, among: &pool)
                    if !expected.contains(where: { $0.quad.isNear(pick.quad, within: 0.05 * shortSide) }) { expected.append(pick) }
                }
                expected.sort { $0.score > $1.score }
                let chosen = detector.select(candidates, limit: limit, shortSide: shortSide, map: map).picks.map(\.outline)
                XCTAssertEqual(chosen.count, expected.count, "limit \(limit)")
                for (found, truth) in zip(chosen, expected) {
                    XCTAssertTrue(found.quad.isNear(truth.quad, within: 1e-9), "limit \(limit): \(found.quad) vs \(truth.quad)")
                }
            }
        }
    }
}
