import Foundation
import XCTest
@testable import GPUStyle

/// `--style-image`, `--style-vector` and `--save-style` as a user runs them: the photo through
/// the arbitrary-style network at its full size (the library's result, through the PNG),
/// vectors saved and reused, blends, folders and videos, and the mistakes people make.
final class StyleImageCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-painting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    var photo: String { Fixtures.root.appendingPathComponent("photos/coffee.png").path }
    /// Two of the parity fixtures' paintings (synthetic strokes; scikit-image's brick).
    var strokes: String { ArbitraryStyleTests.root.appendingPathComponent("style_00.png").path }
    var brick: String { ArbitraryStyleTests.root.appendingPathComponent("style_05.png").path }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try TestProcess.gpustyle(["--device", "cpu"] + arguments)
    }

    func maxDifference(_ a: Image, _ b: Image) -> Float {
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        return zip(a.rgb, b.rgb).map { abs($0 - $1) }.max() ?? .infinity
    }

    /// The PNG is the library's full-resolution result rounded to 8 bits; the saved vector is the
    /// predictor's, and reusing it gives the same bytes.
    func testPaintingSavedAndReused() throws {
        let first = path("first.png"), vectorFile = path("strokes.json")
        var result = try run(["--style-image", strokes, "--save-style", vectorFile, photo, first])
        XCTAssertEqual(result.status, 0, result.stderr)
        let saved = try StyleVectorFile.read(path: vectorFile)
        let style = try ArbitraryStyle(backend: CPUBackend(weights: []))
        XCTAssertEqual(saved.vector, try style.styleVector(try ImageIO.read(path: strokes)))
        XCTAssertEqual(saved.sources, ["style_00.png"])
        let expected = try style.stylizeFullResolution(try ImageIO.read(path: photo), styleVector: saved.vector)
        let written = try ImageIO.read(path: first)
        XCTAssertLessThanOrEqual(maxDifference(written, expected), 0.5 / 255 + 1e-6)
        XCTAssertGreaterThan(zip(written.rgb, try ImageIO.read(path: photo).rgb).map { abs($0 - $1) }.reduce(0, +)
                                / Float(written.rgb.count), 0.05, "the photo is stylized")

        let again = path("again.png")
        result = try run(["--style-vector", vectorFile, photo, again])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again)), try Data(contentsOf: URL(fileURLWithPath: first)))
    }

    /// Paintings blend by their vectors; a built-in style and a painting by their pictures.
    func testBlends() throws {
        let style = try ArbitraryStyle(backend: CPUBackend(weights: []))
        let a = try style.styleVector(try ImageIO.read(path: strokes)), b = try style.styleVector(try ImageIO.read(path: brick))
        let image = try ImageIO.read(path: photo)
        let blended = zip(a, b).map { 0.7 * $0 + 0.3 * $1 }
        let out = path("ab.png")
        var result = try run(["--style-image", "\(strokes):0.7,\(brick):0.3", photo, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try style.stylizeFullResolution(image, styleVector: blended)
        // The vector's sum in another order may move one value by a float step: within a level.
        XCTAssertLessThanOrEqual(maxDifference(try ImageIO.read(path: out), expected), 1.5 / 255)

        let mixed = path("mixed.png"), builtIn = path("builtin.png"), painted = path("painted.png")
        for (arguments, file) in [(["--style", "3", "--style-image", strokes], mixed), (["--style", "3"], builtIn),
                                  (["--style-image", strokes], painted)] {
            result = try run(arguments + [photo, file])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let m = try ImageIO.read(path: mixed), s = try ImageIO.read(path: builtIn), p = try ImageIO.read(path: painted)
        let halfway = Image(width: m.width, height: m.height, rgb: zip(s.rgb, p.rgb).map { 0.5 * $0 + 0.5 * $1 })
        XCTAssertLessThanOrEqual(maxDifference(m, halfway), 1.01 / 255, "equal shares of the two pictures")
    }

    func testMistakesAreOneLineAndNoOutput() throws {
        let out = path("out.png")
        func refused(_ arguments: [String], _ needle: String) throws {
            let result = try run(arguments + [photo, out])
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssert(result.stderr.contains(needle), "'\(result.stderr)' should mention '\(needle)'")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        try refused(["--style-image", path("missing.jpg")], "missing.jpg")
        let notAPicture = path("notes.jpg")
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: notAPicture))
        try refused(["--style-image", notAPicture], "notes.jpg")
        let badVector = path("bad.json")
        try Data("{\"vector\": [1, 2]}".utf8).write(to: URL(fileURLWithPath: badVector))
        try refused(["--style-vector", badVector], "bad.json")
        var file = StyleVectorFile(sources: [], vector: [Float](repeating: 0, count: 99))
        try file.write(to: badVector)
        try refused(["--style-vector", badVector], "100 finite numbers")
        file = StyleVectorFile(sources: [], vector: [Float](repeating: 0, count: 100))
        file.version = 7
        try file.write(to: badVector)
        try refused(["--style-vector", badVector], "version 7")
        try refused(["--save-style", path("v.json")], "--save-style needs a painting")
        try refused(["--style-image", "\(strokes):-1"], "bad weight")
        try refused(["--style-image", "\(strokes):0"], "sum to zero")
        try refused(["--style", "2", "--smooth", "0.5"], "--smooth is for videos")
    }

    /// A folder with a painting; the second run skips what it made, another painting redoes it.
    func testFolderIsResumablePerPainting() throws {
        let inputs = path("in"), outputs = path("out"), summary = path("summary.json")
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        for name in ["astronaut", "coffee"] {
            try FileManager.default.copyItem(atPath: Fixtures.root.appendingPathComponent("photos/\(name).png").path,
                                             toPath: "\(inputs)/\(name).png")
        }
        func counts(_ painting: String) throws -> [String: Int] {
            let result = try run(["--style-image", painting, "--summary", summary, inputs, "-o", outputs])
            XCTAssertEqual(result.status, 0, result.stderr)
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary))) as! [String: Any]
            return ["done": json["done"] as! Int, "skipped": json["skipped"] as! Int]
        }
        XCTAssertEqual(try counts(strokes), ["done": 2, "skipped": 0])
        XCTAssertEqual(try counts(strokes), ["done": 0, "skipped": 2])
        XCTAssertEqual(try counts(brick), ["done": 2, "skipped": 0], "another painting is another output")
    }

    /// A video's frames are the photo stylization with the painting.
    func testVideoWithAPainting() throws {
        try LiveTestSupport.requireFfmpeg()
        let clip = path("clip.mp4")
        let made = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                                                "testsrc2=size=96x64:rate=10:duration=0.5", "-pix_fmt", "yuv420p", clip])
        XCTAssertEqual(made.status, 0, made.stderr)
        let out = path("styled.mkv")
        let result = try run(["--style-image", strokes, "--video-codec", "ffv1", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let decoded = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", out, "-f", "yuv4mpegpipe",
                                                                   "-pix_fmt", "yuv420p", "-"])
        let source = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", clip, "-f", "yuv4mpegpipe", "-"])
        let (header, frames) = try LiveTestSupport.parse(decoded.stdout)
        let original = try LiveTestSupport.parse(source.stdout).1
        XCTAssertEqual(frames.count, 5)
        let style = try ArbitraryStyle(backend: CPUBackend(weights: []))
        let expected = try style.stylizeFullResolution(YUVConversion.image(from: original[2], fullRange: header.fullRange),
                                                       styleVector: try style.styleVector(try ImageIO.read(path: strokes)))
        let want = YUVConversion.frame(from: expected, chroma: header.chroma, fullRange: header.fullRange)
        let meanY = Double(zip(want.y, frames[2].y).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(want.y.count)
        XCTAssertLessThan(meanY, 1, "the frame is the photo stylized with the painting")
    }

    /// `live --style-image`: every frame stylized with the painting (not the default style 0).
    func testLiveWithAPainting() throws {
        try LiveTestSupport.requireFfmpeg()
        let clip = path("bars.mp4")
        let made = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                                                "smptebars=size=96x72:rate=30:duration=0.5", "-pix_fmt", "yuv420p", clip])
        XCTAssertEqual(made.status, 0, made.stderr)
        func last(_ extra: [String]) throws -> YUVFrame {
            let out = path("live\(extra.count).y4m")
            let result = try TestProcess.gpustyle(["live", "--device", "cpu", "--input", clip, "--full-frame", "-o", out] + extra)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try XCTUnwrap(try LiveTestSupport.parse(try Data(contentsOf: URL(fileURLWithPath: out))).1.last)
        }
        let painted = try last(["--style-image", strokes]), styleZero = try last([]), vector = try last(["--style-vector", {
            let file = path("v.json")
            try StyleVectorFile(sources: [], vector: try ArbitraryStyle(backend: CPUBackend(weights: []))
                .styleVector(try ImageIO.read(path: strokes))).write(to: file)
            return file
        }()])
        func mean(_ a: [UInt8], _ b: [UInt8]) -> Double {
            Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
        }
        XCTAssertGreaterThan(mean(painted.y, styleZero.y), 8, "the painting, not style 0")
        XCTAssertEqual(painted.y, vector.y, "a saved vector is the painting")
    }
}
