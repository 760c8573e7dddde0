import Foundation
import XCTest
@testable import GPUStyle

/// The live pipeline on the committed synthetic video (tools/make_live_video.py: a framed
/// picture moving in perspective over a brick wall, a hand passing over it, then leaving the
/// view), scored against the generator's per-frame corners. `--pace lockstep` makes the quads
/// independent of the machine's speed; `tools/evaluate_live.py` scores real-time runs too.
final class LiveTrackingTests: XCTestCase {
    struct Truth: Decodable {
        struct Frame: Decodable {
            let frame: Int
            let quad: [[Double]]?
            let visible: Bool
        }
        let fps: Double
        let frames: [Frame]
    }

    struct LogLine: Decodable {
        let frame: Int
        let quad: [[Double]]?
        let state: String
    }

    /// Mean distance of the corners under the best cyclic assignment (either winding), as
    /// tools/evaluate_rectangles.py matches them.
    static func cornerError(_ found: [[Double]], _ truth: [[Double]]) -> Double {
        var best = Double.infinity
        for order in [found, [found[0], found[3], found[2], found[1]]] {
            for rotation in 0..<4 {
                let total = (0..<4).map { k in
                    hypot(order[(k + rotation) % 4][0] - truth[k][0], order[(k + rotation) % 4][1] - truth[k][1])
                }.reduce(0, +)
                best = min(best, total / 4)
            }
        }
        return best
    }

    func testCommittedVideoMeetsTheTrackingTargets() throws {
        try LiveTestSupport.requireFfmpeg()
        let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("live")
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent("truth.json")))
        let work = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let logPath = work.appendingPathComponent("quads.jsonl").path
        let result = try TestProcess.gpustyle(["live", "--input", folder.appendingPathComponent("video.mp4").path, "--pace", "lockstep",
                                               "--device", "cpu", "--quad-log", logPath, "--output", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(LogLine.self, from: Data($0.utf8)) }
        XCTAssertEqual(lines.map(\.frame), Array(0..<truth.frames.count), "lockstep processes every frame in order")

        var visible = 0, overlaid = 0, errors: [Double] = [], falseOverlays = 0
        var lastSeen: Int?
        for (line, frame) in zip(lines, truth.frames) {
            if frame.quad != nil { lastSeen = frame.frame }
            if frame.visible, let truthQuad = frame.quad {
                visible += 1
                if let found = line.quad {
                    overlaid += 1
                    errors.append(Self.cornerError(found, truthQuad))
                }
            } else if frame.quad == nil, let lastSeen, Double(frame.frame - lastSeen) > truth.fps, line.quad != nil {
                falseOverlays += 1
            }
        }
        let share = Double(overlaid) / Double(visible)
        let meanError = errors.reduce(0, +) / Double(errors.count)
        XCTAssertGreaterThan(visible, 150)
        XCTAssertGreaterThanOrEqual(share, 0.95, "overlay on \(overlaid) of \(visible) visible frames")
        XCTAssertLessThanOrEqual(meanError, 3, "mean corner error \(meanError) px")
        XCTAssertEqual(falseOverlays, 0, "overlays more than 1 s after the picture left")
        XCTAssertTrue(lines.contains { $0.state == "tracked" } && lines.contains { $0.state == "detected" })
    }
}
