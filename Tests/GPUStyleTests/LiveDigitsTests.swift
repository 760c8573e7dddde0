import Foundation
import XCTest
@testable import GPUStyle

/// `LiveDigits` on a synthetic video: Fixtures/digits/notes-example.jpg (four notes: 6, 9, 8, 4)
/// seen through a window sliding 2 px right and 1 px down per frame, so every note's true
/// corners are known in every frame; then a cut to a note-free picture.
final class LiveDigitsTests: XCTestCase {
    static let renderer = Result { try TextRenderer() }

    private func renderer() throws -> TextRenderer {
        do { return try Self.renderer.get() } catch {
            throw XCTSkip("no font (tools/install-deps installs fonts-dejavu-core): \(error)")
        }
    }

    struct Truth {
        let digit: Int
        let corners: [Point]
    }

    static let width = 896, height = 504

    /// The photo and its notes (corners in the photo).
    static func scene() throws -> (image: Image, notes: [Truth]) {
        let root = DigitFixtures.root
        let image = try ImageIO.read(path: root.appendingPathComponent("notes-example.jpg").path)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("notes-example.json"))) as! [[String: Any]]
        let notes = (json[0]["notes"] as! [[String: Any]]).map { note in
            Truth(digit: note["digit"] as! Int,
                  corners: (note["corners"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) })
        }
        return (image, notes)
    }

    /// Where frame `k`'s window starts in the photo.
    static func offset(_ k: Int) -> (x: Int, y: Int) { (2 * k, k) }

    /// The window of `image` at (`x`, `y`), as a full-range 4:2:0 frame; beyond the photo, its
    /// edge pixels repeated.
    static func frame(_ image: Image, x: Int, y: Int) -> YUVFrame {
        let n = width * height, source = image.pixelCount
        var rgb = [Float](repeating: 0, count: 3 * n)
        for c in 0..<3 {
            for row in 0..<height {
                for column in 0..<width {
                    let sx = min(max(column + x, 0), image.width - 1), sy = min(max(row + y, 0), image.height - 1)
                    rgb[c * n + row * width + column] = image.rgb[c * source + sy * image.width + sx]
                }
            }
        }
        return YUVConversion.frame(from: Image(width: width, height: height, rgb: rgb), chroma: .yuv420(centred: true), fullRange: true)
    }

    /// A note-free picture: grey stripes and blobs (texture, no coloured paper).
    static func noteFree() -> YUVFrame {
        var y = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                let v = 120 + 50 * sin(Double(column) / 13) * cos(Double(row) / 17) + 30 * sin(Double(column + 2 * row) / 5)
                y[row * width + column] = UInt8(max(0, min(255, v)))
            }
        }
        let chroma = (width / 2) * (height / 2)
        return YUVFrame(width: width, height: height, chroma: .yuv420(centred: true), y: y,
                        u: [UInt8](repeating: 128, count: chroma), v: [UInt8](repeating: 128, count: chroma))
    }

    /// The truth note nearest `quad` in frame `k`, and the mean distance of their corners.
    static func nearest(_ quad: Quad, in notes: [Truth], frame k: Int) -> (note: Truth, error: Double) {
        let o = offset(k)
        return notes.map { note in
            let moved = note.corners.map { Point(x: $0.x - Double(o.x), y: $0.y - Double(o.y)) }
            return (note, zip(moved, quad.corners).map { $0.distance(to: $1) }.reduce(0, +) / 4)
        }.min { $0.1 < $1.1 }!
    }

    /// Lockstep with the real reader (CPU): every note is drawn at its moving position with its
    /// digit, nothing else is drawn, and nothing after the cut to a note-free picture.
    func testLabelsFollowTheNotesAndVanishOnACut() throws {
        let (image, notes) = try Self.scene()
        let classifier = try DigitClassifier(backend: CPUBackend(weights: []))
        let reader = NoteReader(detector: RectangleDetector(), warper: CPUPerspectiveWarper(), classifier: classifier)
        var options = LiveDigitsOptions()
        options.lockstep = true
        let live = LiveDigits(options: options, renderer: try renderer(), reader: reader)
        defer { live.finish() }
        let frames = 30
        var errors: [Double] = []
        var seen = [Int: Int]()  // digit -> frames drawn with the right digit
        var ids = [Int: Set<Int>]()  // digit -> the ids its label was drawn with
        for k in 0..<frames {
            let o = Self.offset(k)
            let input = Self.frame(image, x: o.x, y: o.y)
            let (out, report) = try live.process(input, index: k, time: Double(k) / 30, fullRange: true)
            for note in report.notes {
                let (truth, error) = Self.nearest(note.quad, in: notes, frame: k)
                XCTAssertLessThan(error, 6, "frame \(k): note \(note.text) at \(note.quad) is no note")
                errors.append(error)
                ids[truth.digit, default: []].insert(note.id)
                if note.text.hasPrefix("\(truth.digit) ") { seen[truth.digit, default: 0] += 1 }
                // The label is drawn: its box is darker than the frame was.
                XCTAssertNotEqual(out.y[note.box.y * Self.width + note.box.x], input.y[note.box.y * Self.width + note.box.x])
            }
        }
        for truth in notes {
            XCTAssertGreaterThanOrEqual(seen[truth.digit] ?? 0, frames * 9 / 10, "note \(truth.digit): drawn with its digit on too few frames")
        }
        // Each new reading (every 6 frames) is matched to the tracked notes: a note keeps its track.
        XCTAssertEqual(ids.values.map(\.count), [1, 1, 1, 1], "\(ids)")
        let mean = errors.reduce(0, +) / Double(max(1, errors.count))
        print("LiveDigitsTests: \(errors.count) labels drawn on \(frames) frames, mean corner error \(String(format: "%.2f", mean)) px, max \(String(format: "%.2f", errors.max() ?? 0)) px; right digit per note \(seen)")
        XCTAssertLessThan(mean, 3)
        let cut = Self.noteFree()
        for k in frames..<(frames + 10) {
            let (out, report) = try live.process(cut, index: k, time: Double(k) / 30, fullRange: true)
            if k == frames { print("LiveDigitsTests: the cut \(report.sceneCut ? "was" : "was not") seen as one; \(report.lost) notes lost") }
            XCTAssertEqual(report.notes.map(\.text), [], "frame \(k): drawn on a note-free picture")
            XCTAssertEqual(out.y, cut.y, "frame \(k) is left as it came")
        }
    }

    /// A scripted reader (the truth of frame 0) held while 10 frames go by: nothing is drawn
    /// before it, its notes are then carried 20 px to the current frame and tracked from there;
    /// once no reading has confirmed them for `maximumAge`, nothing is drawn.
    func testReadingIsCarriedToTheCurrentFrameAndExpires() throws {
        let (image, notes) = try Self.scene()
        let gate = DispatchSemaphore(value: 0)
        let first = notes.map { NoteReading(quad: Quad(corners: $0.corners), content: .digit($0.digit),
                                             top: [(digit: $0.digit, probability: 0.9)], inkFraction: 0.1) }
        var options = LiveDigitsOptions()
        options.maximumAge = 0.6
        let live = LiveDigits(options: options, renderer: try renderer()) { _ in
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
            let o = Self.offset(k)
            let report = try live.process(Self.frame(image, x: o.x, y: o.y), index: k, time: Double(k) / 30, fullRange: true).report
            if k < 10 {
                XCTAssertEqual(report.notes.count, 0, "frame \(k): drawn before the first reading")
            } else if k <= 18 {
                // The reading was made on frame 0 (time 0): confirmed until 0.6 s, frame 18.
                XCTAssertEqual(report.notes.count, 4, "frame \(k)")
                if k == 10 { XCTAssertEqual(report.readingIndex, 0) }
                for note in report.notes {
                    let (truth, error) = Self.nearest(note.quad, in: notes, frame: k)
                    XCTAssertEqual(note.text, "\(truth.digit) 90%")
                    XCTAssertEqual(note.readingIndex, 0)
                    errors.append(error)
                }
            } else {
                XCTAssertEqual(report.notes.count, 0, "frame \(k): the reading is \(Double(k) / 30) s old")
            }
        }
        let mean = errors.reduce(0, +) / Double(max(1, errors.count))
        print("LiveDigitsTests: carried 20 px and tracked: mean corner error \(String(format: "%.2f", mean)) px, max \(String(format: "%.2f", errors.max() ?? 0)) px")
        XCTAssertLessThan(mean, 2)
        XCTAssertLessThan(errors.max() ?? 0, 4)
    }

    /// A note that leaves the frame is dropped (the tracker's visible share fails), and
    /// is not drawn again while the reading that found it is still fresh.
    func testNoteLeavingTheFrameIsDropped() throws {
        let (image, notes) = try Self.scene()
        // The 6 (leftmost, x 73-224) slides out to the left, 12 px a frame: half of it is out
        // of view from frame 13.
        let six = notes.first { $0.digit == 6 }!
        let reading = [NoteReading(quad: Quad(corners: six.corners), content: .digit(6), top: [(digit: 6, probability: 0.95)],
                                   inkFraction: 0.1)]
        var options = LiveDigitsOptions()
        options.lockstep = true
        options.interval = 100  // one reading, on frame 0
        options.maximumAge = 100
        let live = LiveDigits(options: options, renderer: try renderer()) { _ in reading }
        defer { live.finish() }
        var drawn: [Int] = []
        var lostOn: Int?
        for k in 0..<20 {
            let report = try live.process(Self.frame(image, x: 12 * k, y: 0), index: k, time: Double(k) / 30, fullRange: true).report
            if !report.notes.isEmpty { drawn.append(k) }
            if report.lost > 0 { lostOn = k }
            for note in report.notes {
                let error = zip(note.quad.corners, six.corners).map { $0.distance(to: Point(x: $1.x - Double(12 * k), y: $1.y)) }.max()!
                if k < 10 { XCTAssertLessThan(error, 3, "frame \(k)") }
            }
        }
        print("LiveDigitsTests: the 6 leaving the view drawn on frames \(drawn), lost on frame \(lostOn.map(String.init) ?? "none")")
        XCTAssertEqual(drawn, Array(0..<drawn.count), "drawn from the reading until lost, never after")
        XCTAssertGreaterThanOrEqual(drawn.count, 10)
        XCTAssertLessThanOrEqual(drawn.count, 16, "a note mostly out of view is not drawn")
        XCTAssertNotNil(lostOn)
    }
}

/// `gpustyle live --digits` end to end on a tiny clip, and its refusals.
final class LiveDigitsCLITests: XCTestCase {
    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
    }

    /// Six frames of the notes photo, the window sliding 2 px a frame (ffmpeg's crop): every
    /// frame comes out, and the log lists the four notes with their digits.
    func testDigitsReadsTheNotesOfAClip() throws {
        let folder = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = DigitFixtures.root.appendingPathComponent("notes-example.jpg").path
        let clip = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-loop", "1", "-framerate", "30",
                                                                "-i", photo, "-vf", "crop=896:504:2*n:n", "-frames:v", "6",
                                                                "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        guard clip.status == 0 else { throw XCTSkip("ffmpeg could not make the clip: \(clip.stderr)") }
        let log = folder.appendingPathComponent("notes.jsonl").path
        let result = try TestProcess.gpustyle(["live", "--digits", "--pace", "lockstep", "--device", "cpu", "--quad-log", log, "--stats"],
                                              stdin: clip.stdout)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try LiveTestSupport.parse(result.stdout).1.count, 6)
        XCTAssertTrue(result.stderr.contains("readings"), result.stderr)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let texts = try XCTUnwrap(first["notes"] as? [[String: Any]]).compactMap { $0["text"] as? String }
        XCTAssertEqual(Set(texts.compactMap { $0.split(separator: " ").first.map(String.init) }), ["6", "9", "8", "4"], "\(texts)")
    }

    func testDigitsIsItsOwnMode() throws {
        for (arguments, message) in [(["--classify"], "--classify"), (["--full-frame"], "--full-frame"), (["--cycle", "2s"], "--cycle"),
                                     (["--model", "/x.gpsm"], "--model")] {
            let result = try TestProcess.gpustyle(["live", "--digits"] + arguments)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
        }
    }
}
