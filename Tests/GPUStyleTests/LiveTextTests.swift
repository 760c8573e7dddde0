import Foundation
import XCTest
@testable import GPUStyle

/// `LiveText` on the committed clip of tools/make_text_video.py (Fixtures/live-text): a sign
/// with three lines ("CAFE ROMA", "Open 7am-9pm", "Espresso 2.50") on a textured wall, seen by a
/// camera that holds, pans, zooms, rolls and tilts (frames 0-64), pans the sign out of view to
/// the left, blurred (65-84: every line wholly out of view from frame 78), and shows the bare
/// wall (85-99). The truth gives each line's and character's ink box on the wall and the wall
/// -> frame homography of every frame.
final class LiveTextTests: XCTestCase {
    struct Truth: Decodable {
        struct Line: Decodable {
            struct Character: Decodable {
                let character: String
                let quad: [[Double]]
            }
            let string: String
            let quad: [[Double]]
            let characters: [Character]
        }
        let width: Int
        let height: Int
        let fps: Double
        let frames: Int
        let lines: [Line]
        let homographies: [[Double]]

        /// Wall -> frame `k` in pixel-centre coordinates (the truth's are continuous).
        func homography(_ k: Int) -> Homography {
            Homography.translation(-0.5, -0.5).composed(after: Homography(matrix: homographies[k]).composed(after: .translation(0.5, 0.5)))
        }

        /// Line `i`'s ink box in frame `k` (pixel-centre coordinates).
        func quad(_ i: Int, frame k: Int) -> Quad {
            Quad(corners: lines[i].quad.map { homography(k).apply(Point(x: $0[0] - 0.5, y: $0[1] - 0.5)) })
        }

        /// Frame `r` -> frame `k`: how the wall (and everything on it) moved.
        func motion(from r: Int, to k: Int) -> Homography {
            homography(k).composed(after: homography(r).inverse)
        }
    }

    struct Clip {
        let truth: Truth
        let frames: [YUVFrame]
        let fullRange: Bool
    }

    static let clip = Result { () throws -> Clip in
        let folder = Fixtures.root.appendingPathComponent("live-text")
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: folder.appendingPathComponent("truth.json")))
        let decoded = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i",
                                                                   folder.appendingPathComponent("video.mp4").path,
                                                                   "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        guard decoded.status == 0 else { throw XCTSkip("ffmpeg could not decode the clip: \(decoded.stderr)") }
        let (header, frames) = try LiveTestSupport.parse(decoded.stdout)
        return Clip(truth: truth, frames: frames, fullRange: header.fullRange)
    }

    private func clip() throws -> Clip {
        try LiveTestSupport.requireFfmpeg()
        return try Self.clip.get()
    }

    static let renderer = Result { try TextRenderer() }

    private func renderer() throws -> TextRenderer {
        do { return try Self.renderer.get() } catch {
            throw XCTSkip("no font (tools/install-deps installs fonts-dejavu-core): \(error)")
        }
    }

    /// Mean distance of corresponding corners.
    static func cornerError(_ a: Quad, _ b: Quad) -> Double {
        zip(a.corners, b.corners).map { $0.distance(to: $1) }.reduce(0, +) / 4
    }

    /// The truth line a drawn quad is on in frame `k`: the one whose ink box's centre lies
    /// inside it (nil: none, the line is drawn on no text).
    static func truthLine(under quad: Quad, in truth: Truth, frame k: Int) -> Int? {
        truth.lines.indices.first { quad.contains(truth.quad($0, frame: k).centre, tolerance: 0) }
    }

    /// Lockstep with the real reader (CPU): the three lines are read exactly, drawn on their
    /// text while the sign holds, pans, zooms, rolls and tilts, follow it (each drawn quad
    /// against the quad its reading found, moved by the truth's motion since), and nothing is
    /// drawn once the text has left the view.
    func testLinesFollowTheSignAndGoWithIt() throws {
        let clip = try clip(), truth = clip.truth
        var options = LiveTextOptions()
        options.lockstep = true
        let live = LiveText(options: options, renderer: try renderer(), reader: try TextReader(backend: CPUBackend(weights: [])))
        defer { live.finish() }
        var trackingErrors: [Double] = [], panErrors: [Double] = [], truthErrors: [Double] = []
        var drawnFrames = [Int](repeating: 0, count: truth.lines.count)
        var strings = [Int: Set<String>]()       // truth line -> strings drawn on it
        var ids = [Int: Set<Int>]()              // truth line -> ids drawn on it
        var lastDrawn = -1
        for (k, input) in clip.frames.enumerated() {
            let (out, report) = try live.process(input, index: k, time: Double(k) / truth.fps, fullRange: clip.fullRange)
            if !report.lines.isEmpty { lastDrawn = k }
            for drawn in report.lines {
                let quad = drawn.line.quad
                let on = try XCTUnwrap(Self.truthLine(under: quad, in: truth, frame: k), "frame \(k): \(drawn.line.string) drawn on no text")
                strings[on, default: []].insert(drawn.line.string)
                ids[on, default: []].insert(drawn.id)
                drawnFrames[on] += 1
                XCTAssertEqual(drawn.line.characters.count, drawn.line.string.filter { $0 != " " }.count)
                if drawn.readingIndex == k {
                    XCTAssertEqual(drawn.age, 0)
                    XCTAssertEqual(quad, drawn.readQuad, "lockstep: drawn where it was read")
                } else {
                    let expected = try XCTUnwrap(truth.motion(from: drawn.readingIndex, to: k).apply(drawn.readQuad))
                    trackingErrors.append(Self.cornerError(quad, expected))
                    if k >= 65 { panErrors.append(trackingErrors.last!) }
                }
                truthErrors.append(Self.cornerError(quad, truth.quad(on, frame: k)))
                if let box = drawn.box {  // the label is drawn: its box's corner is darker than the frame was
                    XCTAssertLessThan(out.y[box.y * truth.width + box.x], input.y[box.y * truth.width + box.x], "frame \(k)")
                }
            }
            // Every line wholly out of view from frame 78: nothing drawn, the frame as it came.
            if k >= 78 {
                XCTAssertEqual(report.lines.map(\.line.string), [], "frame \(k): drawn after the text left")
                XCTAssertEqual(out.y, input.y, "frame \(k) is left as it came")
            }
        }
        let mean = trackingErrors.reduce(0, +) / Double(max(1, trackingErrors.count))
        let truthMean = truthErrors.reduce(0, +) / Double(max(1, truthErrors.count))
        print("LiveTextTests: lines drawn on \(drawnFrames) frames (each of 100), strings \(strings.sorted { $0.key < $1.key }.map(\.value)), "
              + "ids \(ids.sorted { $0.key < $1.key }.map(\.value)); tracking error (drawn quad against its reading's quad moved by the truth) "
              + "mean \(String(format: "%.2f", mean)) px, max \(String(format: "%.2f", trackingErrors.max() ?? 0)) px over \(trackingErrors.count) "
              + "tracked lines (from frame 65, the pan away: mean \(String(format: "%.2f", panErrors.reduce(0, +) / Double(max(1, panErrors.count)))) px, "
              + "max \(String(format: "%.2f", panErrors.max() ?? 0)) px over \(panErrors.count)); against the ink boxes mean \(String(format: "%.2f", truthMean)) px; last drawn on frame \(lastDrawn)")
        for (i, line) in truth.lines.enumerated() {
            XCTAssertEqual(strings[i], [line.string], "line \(i)")
            // From the first reading (frame 0) until the pan away (frame 66) at least.
            XCTAssertGreaterThanOrEqual(drawnFrames[i], 66, "line \(i) \(line.string)")
            XCTAssertEqual(ids[i]?.count, 1, "line \(i) keeps its id from reading to reading")
        }
        XCTAssertLessThan(mean, 0.5)
        XCTAssertLessThan(trackingErrors.max() ?? 0, 3)
        // The detector's quads are the ink boxes plus its unclip margin: a few pixels.
        XCTAssertLessThan(truthMean, 6)
        XCTAssertLessThan(lastDrawn, 78)
    }

    /// Truth lines of frame `k` as a reader would give them (the ink boxes, the strings, the
    /// characters' boxes).
    static func scripted(_ truth: Truth, frame k: Int, lines: [Int]? = nil) -> [TextLine] {
        (lines ?? Array(truth.lines.indices)).map { i in
            let homography = truth.homography(k)
            func quad(_ corners: [[Double]]) -> Quad { Quad(corners: corners.map { homography.apply(Point(x: $0[0] - 0.5, y: $0[1] - 0.5)) }) }
            let string = truth.lines[i].string
            let characters = zip(string.filter { $0 != " " }, truth.lines[i].characters).map { TextCharacter(quad: quad($1.quad), character: $0) }
            return TextLine(quad: quad(truth.lines[i].quad), detectionScore: 0.9, confidence: 0.95, string: string, characters: characters)
        }
    }

    /// A scripted reading of frame 0 held while 10 frames go by: nothing is drawn before it;
    /// its lines are then carried to the current frame (the sign drifted 10 px) and tracked from
    /// there; once no reading has confirmed them for `maximumAge`, nothing is drawn.
    func testReadingIsCarriedToTheCurrentFrameAndExpires() throws {
        let clip = try clip(), truth = clip.truth
        let gate = DispatchSemaphore(value: 0)
        let first = Self.scripted(truth, frame: 0)
        var options = LiveTextOptions()
        options.maximumAge = 0.6
        let live = LiveText(options: options, renderer: nil) { _ in
            _ = gate.wait(timeout: .now() + 30)
            return first
        }
        defer { gate.signal(); gate.signal(); live.finish() }
        var errors: [Double] = []
        for k in 0..<30 {
            if k == 10 {
                gate.signal()
                live.stage.waitUntilIdle()
            }
            let report = try live.process(clip.frames[k], index: k, time: Double(k) / truth.fps, fullRange: clip.fullRange).report
            if k < 10 {
                XCTAssertEqual(report.lines.count, 0, "frame \(k): drawn before the first reading")
            } else if k <= 18 {
                // The reading was made on frame 0 (time 0): confirmed until 0.6 s, frame 18.
                XCTAssertEqual(report.lines.map(\.line.string), truth.lines.map(\.string), "frame \(k)")
                if k == 10 { XCTAssertEqual(report.readingIndex, 0) }
                for (i, drawn) in report.lines.enumerated() {
                    XCTAssertEqual(drawn.readingIndex, 0)
                    XCTAssertNil(drawn.box, "no renderer: no label")
                    errors.append(Self.cornerError(drawn.line.quad, truth.quad(i, frame: k)))
                    for (character, expected) in zip(drawn.line.characters, Self.scripted(truth, frame: k)[i].characters) {
                        errors.append(Self.cornerError(character.quad, expected.quad))
                    }
                }
            } else {
                XCTAssertEqual(report.lines.count, 0, "frame \(k): the reading is \(Double(k) / truth.fps) s old")
            }
        }
        let mean = errors.reduce(0, +) / Double(max(1, errors.count))
        print("LiveTextTests: carried 10 frames and tracked: mean corner error of lines and characters \(String(format: "%.2f", mean)) px, "
              + "max \(String(format: "%.2f", errors.max() ?? 0)) px")
        XCTAssertLessThan(mean, 0.5)
        XCTAssertLessThan(errors.max() ?? 0, 2)
    }

    /// A line read on a frame where it is cut by the frame's edge is not taken; the same line
    /// read whole is, and is then followed out of view until its tracking fails.
    func testLineCutByTheEdgeIsNotTakenAndALineLeavingIsDropped() throws {
        let clip = try clip(), truth = clip.truth
        var options = LiveTextOptions()
        options.lockstep = true
        options.interval = 100  // one reading, on the first frame given
        options.maximumAge = 100
        // Frame 71: every line's left end is out of view.
        let cut = LiveText(options: options, renderer: nil) { _ in Self.scripted(truth, frame: 71) }
        defer { cut.finish() }
        XCTAssertEqual(try cut.process(clip.frames[71], index: 71, time: 71 / truth.fps, fullRange: clip.fullRange).report.lines.count, 0)
        // Read whole on frame 66, followed through the pan away (blurred by up to 20 px).
        let whole = LiveText(options: options, renderer: nil) { _ in Self.scripted(truth, frame: 66) }
        defer { whole.finish() }
        var drawn: [Int] = []
        for k in 66..<85 {
            let report = try whole.process(clip.frames[k], index: k, time: Double(k) / truth.fps, fullRange: clip.fullRange).report
            for line in report.lines {
                drawn.append(k)
                let i = try XCTUnwrap(truth.lines.firstIndex { $0.string == line.line.string })
                let error = Self.cornerError(line.line.quad, truth.quad(i, frame: k))
                XCTAssertLessThan(error, 3, "frame \(k): \(line.line.string)")
                XCTAssertGreaterThan(TrackedQuadCheck.visibleShare(truth.quad(i, frame: k), width: truth.width, height: truth.height), 0,
                                     "frame \(k): \(line.line.string) drawn out of view")
            }
        }
        print("LiveTextTests: lines read on frame 66 drawn on frames \(drawn)")
        XCTAssertEqual(drawn.filter { $0 == 66 }.count, 3)
        XCTAssertLessThan(drawn.max() ?? 0, 78)
    }
}

/// `gpustyle live --text` end to end on the committed clip, and its refusals.
final class LiveTextCLITests: XCTestCase {
    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
    }

    /// The first 40 frames of the clip from the file (--max-frames stops the run there): every
    /// frame comes out, --stats counts readings, and the log lists the three lines with their
    /// strings and characters on every frame.
    func testTextReadsTheLinesOfAClip() throws {
        let folder = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = Fixtures.root.appendingPathComponent("live-text/video.mp4").path
        let log = folder.appendingPathComponent("text.jsonl").path
        let result = try TestProcess.gpustyle(["live", "--text", "--input", clip, "--pace", "lockstep", "--device", "cpu", "--max-frames", "40",
                                               "--quad-log", log, "--stats"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try LiveTestSupport.parse(result.stdout).1.count, 40)
        XCTAssertTrue(result.stderr.contains("readings"), result.stderr)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 40)
        for (k, line) in lines.enumerated() {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(object["frame"] as? Int, k)
            let drawn = try XCTUnwrap(object["lines"] as? [[String: Any]])
            XCTAssertEqual(Set(drawn.compactMap { $0["string"] as? String }), ["CAFE ROMA", "Open 7am-9pm", "Espresso 2.50"], String(line))
            for item in drawn {
                XCTAssertEqual((item["characters"] as? [[String: Any]])?.count, (item["string"] as? String)?.filter { $0 != " " }.count)
                XCTAssertNotNil(item["id"] as? Int)
                XCTAssertEqual((item["read"] as? [[Double]])?.count, 4)
                XCTAssertEqual(item["reading"] as? Int, k / 15 * 15, "a reading every 0.5 s, lockstep")
            }
        }
    }

    func testTextIsItsOwnMode() throws {
        for (arguments, message) in [(["--text", "--digits"], "--digits"), (["--text", "--classify"], "--classify"),
                                     (["--text", "--faces"], "--faces"), (["--text", "--mask", "leftEye=x.png"], "--mask"),
                                     (["--text", "--full-frame"], "--full-frame"), (["--text", "--cycle", "2s"], "--cycle"),
                                     (["--text", "--model", "/x.gpsm"], "--model"), (["--text", "--smoothing", "1,1"], "--smoothing")] {
            let result = try TestProcess.gpustyle(["live"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
