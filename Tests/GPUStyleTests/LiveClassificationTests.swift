import Foundation
import XCTest
@testable import GPUStyle

/// `LiveClassification` with scripted classifiers: labels refresh at 5 Hz or more while frames
/// flow at 30 fps, frames never wait for the classifier, and only a verified result is drawn
/// (nothing before the first, nothing stale, nothing on another scene).
final class LiveClassificationTests: XCTestCase {
    static let renderer = Result { try TextRenderer() }

    private func renderer() throws -> TextRenderer {
        do { return try Self.renderer.get() } catch {
            throw XCTSkip("no font (tools/install-deps installs fonts-dejavu-core): \(error)")
        }
    }

    /// A flat full-range 4:2:0 frame of luma `level` (neutral chroma).
    static func frame(level: UInt8, width: Int = 160, height: Int = 120) -> YUVFrame {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return YUVFrame(width: width, height: height, chroma: .yuv420(centred: true), y: [UInt8](repeating: level, count: width * height),
                        u: [UInt8](repeating: 128, count: chroma), v: [UInt8](repeating: 128, count: chroma))
    }

    /// Names a frame by its content: "level N", N its mean 8-bit value.
    static func name(_ image: Image) -> [Classification] {
        let mean = image.rgb.reduce(0, +) / Float(image.rgb.count)
        return [Classification(index: 0, label: "level \(Int((mean * 255).rounded()))", confidence: 0.87)]
    }

    private func classification(_ options: LiveClassificationOptions = LiveClassificationOptions(),
                                classify: @escaping @Sendable (Image) throws -> [Classification]) throws -> LiveClassification {
        LiveClassification(options: options, renderer: try renderer(), classify: classify)
    }

    private func process(_ live: LiveClassification, _ frame: YUVFrame, index: Int, time: Double? = nil) throws
        -> (frame: YUVFrame, report: LiveLabelReport) {
        try live.process(frame, index: index, time: time ?? Double(index) / 30, fullRange: true)
    }

    /// The classifier is held for the whole run: every frame still comes out, unlabelled, and
    /// none waited for it (no classification finished while they went through).
    func testNothingIsDrawnBeforeTheFirstResultAndFramesDoNotWait() throws {
        let gate = DispatchSemaphore(value: 0)
        let live = try classification { image in
            _ = gate.wait(timeout: .now() + 30)
            return Self.name(image)
        }
        defer { gate.signal(); gate.signal(); live.finish() }
        let input = Self.frame(level: 90)
        // 100 fps: the 30 frames take 0.3 s of video, so the held result is still fresh after them.
        for index in 0..<30 {
            let (out, report) = try process(live, input, index: index, time: Double(index) / 100)
            XCTAssertEqual(report.omission, .noResult)
            XCTAssertNil(report.text)
            XCTAssertTrue(out.y == input.y && out.u == input.u && out.v == input.v, "frame \(index) is left as it came")
        }
        XCTAssertEqual(live.stage.harvest().completed, 0, "30 frames went through while the one classification was held")
        gate.signal()
        live.stage.waitUntilIdle()
        let (out, report) = try process(live, input, index: 30, time: 0.3)
        XCTAssertEqual(report.text, "level 90 87 %")
        XCTAssertEqual(report.resultIndex, 0, "the result of the first frame, the one that was handed over")
        XCTAssertFalse(out.y == input.y, "the label is drawn")
        XCTAssertEqual(live.harvestLabelled(), 1)
    }

    /// 30 fps in real time, a classifier taking 50 ms: the label is refreshed at 5 Hz or more,
    /// each time from a recent frame, and every frame after the first result is labelled.
    func testLabelsRefreshAtLeastFiveTimesASecond() throws {
        let live = try classification { image in
            Thread.sleep(forTimeInterval: 0.05)
            return Self.name(image)
        }
        defer { live.finish() }
        let frames = 90
        let start = MonotonicClock.seconds()
        var reports: [LiveLabelReport] = []
        var longest = 0.0
        for index in 0..<frames {
            // Frames arrive at 30 fps: wait for this one's moment (late frames do not wait).
            let due = start + Double(index) / 30
            let now = MonotonicClock.seconds()
            if due > now { Thread.sleep(forTimeInterval: due - now) }
            let level = UInt8(60 + index / 10)  // a slow change: the same scene, new labels
            let begin = MonotonicClock.seconds()
            reports.append(try process(live, Self.frame(level: level), index: index).report)
            longest = max(longest, MonotonicClock.seconds() - begin)
        }
        let drawn = reports.filter { $0.text != nil }
        let first = try XCTUnwrap(drawn.first).index
        let refreshes = Set(drawn.compactMap(\.resultIndex)).count
        let seconds = Double(frames - first) / 30
        let rate = Double(refreshes) / seconds
        print("LiveClassificationTests: \(refreshes) label refreshes in \(String(format: "%.2f", seconds)) s of video = \(String(format: "%.1f", rate)) Hz; first label on frame \(first); longest frame \(String(format: "%.2f", 1000 * longest)) ms")
        XCTAssertGreaterThanOrEqual(rate, 5, "refreshes per second of video")
        XCTAssertLessThan(first, 10, "the first label within a third of a second")
        for report in reports where report.index >= first {
            XCTAssertNotNil(report.text, "frame \(report.index): \(report.omission?.rawValue ?? "")")
            XCTAssertLessThanOrEqual(report.age ?? .infinity, 0.5)
            // The label names the frame it was computed on.
            if let text = report.text, let source = report.resultIndex {
                XCTAssertEqual(text, "level \(60 + source / 10) 87 %")
            }
        }
    }

    /// The frame loop's own cost as a ratio, with a classifier that keeps a core busy for 50 ms
    /// at up to 10 Hz against one that runs once, at once (both draw the label). Printed, not asserted: it measures the machine (2 shared
    /// cores), not a property.
    func testFrameTimeWithAndWithoutClassification() throws {
        func medianFrameTime(interval: Double, work: Double) throws -> (median: Double, classified: Int) {
            var options = LiveClassificationOptions()
            options.interval = interval
            let live = try classification(options) { image in
                let end = MonotonicClock.seconds() + work
                while MonotonicClock.seconds() < end {}  // a busy core, as a network keeps it
                return Self.name(image)
            }
            defer { live.finish() }
            let frame = Self.frame(level: 100, width: 640, height: 480)
            var times: [Double] = []
            let start = MonotonicClock.seconds()
            for index in 0..<60 {
                let due = start + Double(index) / 30
                if due > MonotonicClock.seconds() { Thread.sleep(forTimeInterval: due - MonotonicClock.seconds()) }
                let begin = MonotonicClock.seconds()
                _ = try process(live, frame, index: index)
                times.append(MonotonicClock.seconds() - begin)
            }
            live.finish()
            return (times.sorted()[times.count / 2], live.stage.harvest().completed)
        }
        let without = try medianFrameTime(interval: 1e9, work: 0)
        let with = try medianFrameTime(interval: 0.1, work: 0.05)
        XCTAssertEqual(without.classified, 1)
        XCTAssertGreaterThan(with.classified, 0)
        print(String(format: "LiveClassificationTests: median frame time at 640x480 without classification %.3f ms, with %.3f ms (%d classifications): ratio %.2f",
                     1000 * without.median, 1000 * with.median, with.classified, with.median / without.median))
    }

    /// A result older than `maximumAge` is not drawn, however the classifier is doing.
    func testStaleResultsAreNotDrawn() throws {
        // The first classification runs, the next is held. (A semaphore must not be freed below
        // its initial value: libdispatch traps. It starts at 0 and ends at 0.)
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let live = try classification { image in
            _ = gate.wait(timeout: .now() + 30)
            return Self.name(image)
        }
        defer { gate.signal(); live.finish() }
        let frame = Self.frame(level: 70)
        _ = try process(live, frame, index: 0)
        live.stage.waitUntilIdle()
        for index in 1...15 {  // up to 0.5 s after frame 0
            let report = try process(live, frame, index: index).report
            XCTAssertEqual(report.text, "level 70 87 %", "frame \(index)")
            XCTAssertEqual(report.resultIndex, 0)
        }
        for index in 16...30 {
            let (out, report) = try process(live, frame, index: index)
            XCTAssertNil(report.text, "frame \(index)")
            XCTAssertEqual(report.omission, .stale)
            XCTAssertTrue(out.y == frame.y, "frame \(index) is left as it came")
        }
    }

    /// A cut to another scene hides the label at once, until a result of the new scene is back.
    func testAnotherSceneHidesTheLabel() throws {
        var options = LiveClassificationOptions()
        options.lockstep = true
        let live = try classification(options, classify: Self.name)
        defer { live.finish() }
        XCTAssertEqual(try process(live, Self.frame(level: 60), index: 0).report.text, "level 60 87 %")
        let cut = Self.frame(level: 200)
        let (out, report) = try process(live, cut, index: 1)
        XCTAssertEqual(report.omission, .sceneChanged, "the result of frame 0 is 1/30 s old but of another scene")
        XCTAssertTrue(out.y == cut.y, "nothing drawn")
        XCTAssertEqual(try process(live, cut, index: 2).report.omission, .sceneChanged)
        let next = try process(live, cut, index: 3).report  // 0.1 s: the cut frame is classified
        XCTAssertEqual(next.text, "level 200 87 %")
        XCTAssertEqual(next.resultIndex, 3)
        // A small change of the same scene (camera noise, light) keeps the label.
        XCTAssertEqual(try process(live, Self.frame(level: 205), index: 4).report.resultIndex, 3)
    }

    /// `--stats`: how many classifications ran, at what rate, and the labelled frames.
    func testStatisticsCountClassifications() throws {
        var options = LiveClassificationOptions()
        options.lockstep = true
        let live = try classification(options, classify: Self.name)
        defer { live.finish() }
        let statistics = LiveStatistics(now: 0)
        for index in 0..<30 {
            let report = try process(live, Self.frame(level: 80), index: index).report
            statistics.frameDone(latency: 0.001, overlaid: report.text != nil)
        }
        statistics.collect(received: 30, dropped: 0, classification: live)
        let line = try XCTUnwrap(statistics.line(now: 1))
        XCTAssertTrue(line.contains("classifications 10 (10.0 per second), labelled frames 30"), line)
        XCTAssertTrue(line.contains("fps in 30.0 out 30.0"), line)
        XCTAssertTrue(statistics.summary(now: 2).hasPrefix("summary: 2.0 s:"))
    }

    func testUnsureResultsAreNotDrawn() throws {
        var options = LiveClassificationOptions()
        options.lockstep = true
        let live = try classification(options) { _ in [Classification(index: 3, label: "guess", confidence: 0.04)] }
        defer { live.finish() }
        let report = try process(live, Self.frame(level: 60), index: 0).report
        XCTAssertNil(report.text)
        XCTAssertEqual(report.omission, .unsure)
        for confidence in [Float.nan, .infinity] {
            let broken = try classification(options) { _ in [Classification(index: 3, label: "broken", confidence: confidence)] }
            defer { broken.finish() }
            XCTAssertEqual(try process(broken, Self.frame(level: 60), index: 0).report.omission, .unsure, "\(confidence)")
        }
        XCTAssertEqual(LiveClassification.text(for: Classification(index: 0, label: " tabby cat\n", confidence: 0.8712)), "tabby cat 87 %")
    }

    func testAClassifierFailureEndsTheRun() throws {
        struct Broken: Error {}
        var options = LiveClassificationOptions()
        options.lockstep = true
        let live = try classification(options) { _ in throw Broken() }
        defer { live.finish() }
        XCTAssertThrowsError(try process(live, Self.frame(level: 60), index: 0)) { error in
            XCTAssertTrue("\(error)".hasPrefix("classify: "), "\(error)")
        }
    }

    /// The label is in the top-left corner: the dark box with the text's ink, computed here from
    /// the bitmap and the blend's definition, and the rest of the frame untouched.
    func testLabelPixelsAreWhereExpected() throws {
        var options = LiveClassificationOptions()
        options.lockstep = true
        let live = try classification(options, classify: Self.name)
        defer { live.finish() }
        let (width, height) = (320, 240)
        let input = Self.frame(level: 150, width: width, height: height)
        let (out, report) = try process(live, input, index: 0)
        let text = try XCTUnwrap(report.text)
        XCTAssertEqual(text, "level 150 87 %")
        let style = LabelStyle.scaled(toHeight: height)
        XCTAssertEqual(style.pixelSize, 12)
        let bitmap = try renderer().render(text, pixelSize: style.pixelSize)
        let box = LabelDrawing.place(bitmap, style: style, x: 8, y: 8, width: width, height: height)
        XCTAssertEqual(report.box, box)
        XCTAssertEqual([box.x, box.y], [8, 8])
        var inked = 0
        for y in 0..<height {
            for x in 0..<width {
                let luma = Int(out.y[y * width + x])
                guard box.contains(x: x, y: y) else {
                    XCTAssertEqual(luma, 150, "(\(x), \(y)) outside the label")
                    continue
                }
                let tx = x - box.textX, ty = y - box.textY
                let coverage = tx >= 0 && tx < bitmap.width && ty >= 0 && ty < bitmap.height ? Int(bitmap[tx, ty]) : 0
                // The box keeps 40 % of 150; ink blends that towards white (255).
                let expected = 60 + 195 * Double(coverage) / 255
                XCTAssertEqual(Double(luma), expected, accuracy: 0.51, "(\(x), \(y))")
                if coverage >= 128 { inked += 1 }
            }
        }
        XCTAssertGreaterThan(inked, 40)
    }
}

/// `gpustyle live --classify`'s errors (the built-in classifier's model is not needed for them).
final class LiveClassifyCLITests: XCTestCase {
    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
    }

    func testAMissingFontIsAClearError() throws {
        let input = try LiveTestSupport.testsource(width: 64, height: 48, frames: 2)
        let result = try TestProcess.gpustyle(["live", "--classify", "--font", "/nonexistent/DejaVuSans.ttf", "--device", "cpu"], stdin: input)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("/nonexistent/DejaVuSans.ttf: no such file"), result.stderr)
        XCTAssertTrue(result.stdout.isEmpty)
    }

    func testClassifyIsItsOwnMode() throws {
        for (arguments, message) in [(["--full-frame"], "--full-frame"), (["--cycle", "2s"], "--cycle"), (["--quad-log", "/tmp/x.jsonl"], "--quad-log")] {
            let result = try TestProcess.gpustyle(["live", "--classify"] + arguments)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
        }
        for arguments in [["--font", "/x.ttf"], ["--model", "/x.gpsm"]] {
            let result = try TestProcess.gpustyle(["live"] + arguments)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains("--classify"), result.stderr)
        }
    }

    /// A two-class model: the mean of the normalised picture, positive for a bright frame.
    static func brightnessModel() throws -> Data {
        let graph = NetworkGraph(input: 0, output: 2, tensorCount: 3, nodes: [
            .init(name: "pool", operation: .globalAveragePool, inputs: [0], output: 1),
            .init(name: "classes", operation: .fullyConnected(weights: 0, bias: 1, outputs: 2), inputs: [1], output: 2),
        ], constants: ModelConstants(values: [[-4, -4, -4, 4, 4, 4], [0, 0]]))
        let metadata = ModelFile.Metadata(name: "brightness", input: .init(channels: 3, height: 32, width: 32),
                                          labels: ["dark", "bright"], mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5])
        return try ModelFile(graph: graph, metadata: metadata).serialized()
    }

    /// End to end, in lockstep: every frame of a white clip carries "bright 100 %" exactly as
    /// `LabelDrawing` draws it, and nothing else changes.
    func testEveryFrameCarriesTheLabel() throws {
        let folder = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("brightness.gpsm")
        try Self.brightnessModel().write(to: model)
        let made = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                                               "-i", "color=c=white:size=160x120:rate=30", "-frames:v", "6",
                                                               "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        let result = try TestProcess.gpustyle(["live", "--classify", "--model", model.path, "--pace", "lockstep", "--device", "cpu", "--stats"],
                                              stdin: made.stdout)
        // Until the network kernels of the graph runtime are merged, the CPU backend stops on
        // the pooling step (a fatalError in the child, not here).
        if result.status != 0 && result.stderr.contains("has no CPU kernel yet") {
            throw XCTSkip("the CPU backend has no kernel for this model's steps on this branch")
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("classifications 2 "), result.stderr)  // frames 0 and 3 (0.1 s apart)
        let (header, input) = try LiveTestSupport.parse(made.stdout)
        let (_, output) = try LiveTestSupport.parse(result.stdout)
        XCTAssertEqual(output.count, 6)
        let renderer = try TextRenderer()
        let style = LabelStyle.scaled(toHeight: header.height)
        let bitmap = try renderer.render("bright 100 %", pixelSize: style.pixelSize)
        for (index, (source, shown)) in zip(input, output).enumerated() {
            var expected = source
            LabelDrawing.draw(bitmap, on: &expected, fullRange: header.fullRange, x: 8, y: 8, style: style)
            XCTAssertTrue(shown.y == expected.y && shown.u == expected.u && shown.v == expected.v, "frame \(index)")
            XCTAssertFalse(shown.y == source.y, "frame \(index) is labelled")
        }
    }
}
