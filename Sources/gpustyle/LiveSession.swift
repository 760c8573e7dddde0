import Foundation
import GPUStyle

/// One run of `gpustyle live`: the source, the pipeline, the output, and a clean stop at the end
/// of the stream, on SIGINT, or when the reader of our output goes away (SIGPIPE).
final class LiveSession {
    let command: LiveCommand
    let options: LiveOptions

    /// `--mask`'s images, read before the source is opened: a bad one is reported at once.
    let masks: [FaceRegion: Image]

    init(command: LiveCommand, options: LiveOptions) throws {
        self.command = command
        self.options = options
        masks = try FaceMaskArguments.load(command.mask, limits: DecodeLimits(maxPixelsName: "mask images"))
    }

    /// The Y4M source: stdin, or ffmpeg decoding a file or a camera.
    struct Source {
        let reader: Y4MReader
        let ffmpeg: FFmpeg.Child?
        let name: String
    }

    func openSource() throws -> Source {
        if let input = command.input {
            guard FileManager.default.fileExists(atPath: input) else { throw CommandFailure(message: "\(input): no such file") }
            guard FileManager.default.isReadableFile(atPath: input) else { throw CommandFailure(message: "\(input): not readable") }
            // -re: ffmpeg reads at the video's frame rate, like a camera; --pace all wants every
            // frame as fast as we can take them.
            let rate = (command.pace ?? .realtime) == .realtime ? ["-re"] : []
            let child = try FFmpeg.locate().reader(inputArguments: rate + ["-i", input])
            return try open(child, name: input, failure: "ffmpeg could not read \(input)")
        }
        if let camera = command.camera {
            guard FileManager.default.fileExists(atPath: camera) else {
                throw CommandFailure(message: "cannot open camera \(camera): no such device")
            }
            let child = try FFmpeg.locate().reader(inputArguments: ["-f", "v4l2", "-i", camera])
            return try open(child, name: camera, failure: "cannot open camera \(camera)")
        }
        do {
            return Source(reader: try Y4MReader(fileDescriptor: 0), ffmpeg: nil, name: "stdin")
        } catch let error as Y4MError {
            throw CommandFailure(message: "stdin: \(error)")
        }
    }

    private func open(_ child: FFmpeg.Child, name: String, failure: String) throws -> Source {
        do {
            return Source(reader: try Y4MReader(fileDescriptor: child.pipe.fileHandleForReading.fileDescriptor), ffmpeg: child, name: name)
        } catch {
            child.process.terminate()
            let detail = child.lastError
            _ = child.finish()
            throw CommandFailure(message: "\(failure): \(detail ?? "\(error)")")
        }
    }

    func run() throws {
        let source = try openSource()
        let header = source.reader.header
        // The classifier resizes any frame to its input; the style network has a minimum size.
        if !command.classify && !command.digits && !command.text && !command.facesMode {
            try Stylizer.validate(width: header.width, height: header.height)
        }
        let mode = try makeMode()
        // --classify converts only the frames it classifies, on the classification's thread (the
        // CPU kernel). Under auto a GPU failure switches to the CPU kernel for good
        // (FallbackFrameConverter).
        // --digits and --text convert the frames they read in the same way.
        // --faces converts each frame for the mesh, and each frame it detects on, in the same way.
        let converter: FrameConverter = command.classify || command.digits || command.text || command.facesMode ? CPUFrameConverter()
            : try command.deviceOptions.choose("colour conversion", name: \.name, ComputeChoice<FrameConverter>.choose)
        func convert(_ frame: YUVFrame) throws -> Image {
            try converter.image(from: frame, fullRange: header.fullRange)
        }
        // The outputs last: each makes a temporary file, which a later failure must not leave behind.
        let output = try LiveOutput(command.output)
        let log: QuadLog?
        do {
            log = try command.quadLog.map { try QuadLog(path: $0) }
        } catch {
            try? output.finish(keep: false)
            throw error
        }
        let mailbox = FrameMailbox(reader: source.reader, pace: command.pace ?? .realtime)
        let stop = StopSignal()
        // The output keeps the input's header: same size, rate, layout and range.
        let writer = Y4MWriter(fileDescriptor: output.descriptor, header: header)
        let statistics = LiveStatistics()
        var ending: Error?
        mailbox.start()
        let wallStart = MonotonicClock.seconds()
        loop: while !stop.isSet {
            if let maxFrames = command.maxFrames, writer.framesWritten >= maxFrames { break }
            switch mailbox.next(timeout: 0.1) {
            case .waiting:
                break
            case .end:
                break loop
            case .failed(let error):
                ending = CommandFailure(message: "\(source.name): \(error)")
                break loop
            case .frame(let frame, let index):
                let started = MonotonicClock.seconds()
                let time = header.framesPerSecond.map { Double(index) / $0 } ?? started - wallStart
                do {
                    let out: YUVFrame
                    var drawn = false
                    var pictureReport: LiveFrameReport?
                    var notesReport: LiveDigitsReport?
                    var facesReport: LiveFacesReport?
                    var textReport: LiveTextReport?
                    switch mode {
                    case .picture(let pipeline):
                        let (shown, report) = try pipeline.process(try convert(frame), index: index, time: time)
                        drawn = report.overlaid
                        out = report.overlaid || options.fullFrame
                            ? YUVConversion.frame(from: shown, chroma: header.chroma, fullRange: header.fullRange) : frame
                        pictureReport = report
                    case .classify(let classification):
                        let (labelled, report) = try classification.process(frame, index: index, time: time, fullRange: header.fullRange)
                        drawn = report.text != nil
                        out = labelled
                    case .digits(let digits):
                        let (labelled, report) = try digits.process(frame, index: index, time: time, fullRange: header.fullRange)
                        drawn = !report.notes.isEmpty
                        out = labelled
                        notesReport = report
                    case .faces(let faces):
                        let (drawnFrame, report) = try faces.process(frame, index: index, time: time, fullRange: header.fullRange)
                        drawn = !report.faces.isEmpty
                        out = drawnFrame
                        facesReport = report
                    case .text(let text):
                        let (drawnFrame, report) = try text.process(frame, index: index, time: time, fullRange: header.fullRange)
                        drawn = !report.lines.isEmpty
                        out = drawnFrame
                        textReport = report
                    }
                    do {
                        try writer.write(out)
                    } catch let error as Y4MError {
                        // A full disk or an I/O error: status 1, naming the output.
                        throw OutputError(output.name, error.description, isUserError: false)
                    }
                    let latency = MonotonicClock.seconds() - started
                    if let pictureReport { try log?.append(pictureReport, latency: latency) }
                    if let notesReport { try log?.append(notesReport) }
                    if let facesReport { try log?.append(facesReport) }
                    if let textReport { try log?.append(textReport) }
                    statistics.frameDone(latency: latency, overlaid: drawn)
                } catch is Y4MWriter.ClosedError {
                    break loop  // the viewer went away: stop cleanly
                } catch {
                    ending = error
                    break loop
                }
            }
            mode.collect(into: statistics, counts: mailbox.counts)
            if command.stats, let line = statistics.line() { printToStandardError(line) }
        }
        mailbox.close()
        if let ffmpeg = source.ffmpeg {
            ffmpeg.process.terminate()
            // Stopped early (--max-frames, Ctrl-C, an error) with --pace all or lockstep, ffmpeg
            // is decoding ahead, blocked writing into a full pipe: SIGTERM ends it only once that
            // write returns (it restarts), so what it writes is read and dropped until it exits.
            // The mailbox's thread reads at most one more frame first; then the pipe is ours.
            mailbox.waitUntilFinished()
            Self.drain(ffmpeg.pipe.fileHandleForReading.fileDescriptor)
            _ = ffmpeg.finish()
        }
        mode.finish()
        mode.collect(into: statistics, counts: mailbox.counts)
        printToStandardError(statistics.summary())
        try output.finish(keep: ending == nil)
        try log?.finish(keep: ending == nil)
        if let ending { throw ending }
    }
}

extension LiveSession {
    /// Reads `descriptor` to its end, dropping the bytes.
    static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            return
        }
    }
}

extension LiveSession {
    /// What the frames go through: the picture on the wall restyled, or the scene classified.
    enum Mode {
        case picture(LivePipeline)
        case classify(LiveClassification)
        case digits(LiveDigits)
        case faces(LiveFaces)
        case text(LiveText)

        func collect(into statistics: LiveStatistics, counts: (received: Int, dropped: Int)) {
            switch self {
            case .picture(let pipeline): statistics.collect(received: counts.received, dropped: counts.dropped, pipeline: pipeline)
            case .classify(let classification):
                statistics.collect(received: counts.received, dropped: counts.dropped, classification: classification)
            case .digits(let digits): statistics.collect(received: counts.received, dropped: counts.dropped, digits: digits)
            case .faces(let faces): statistics.collect(received: counts.received, dropped: counts.dropped, faces: faces)
            case .text(let text): statistics.collect(received: counts.received, dropped: counts.dropped, text: text)
            }
        }

        func finish() {
            switch self {
            case .picture(let pipeline): pipeline.finish()
            case .classify(let classification): classification.finish()
            case .digits(let digits): digits.finish()
            case .faces(let faces): faces.finish()
            case .text(let text): text.finish()
            }
        }
    }

    /// The stylizer and the picture pipeline, or (`--classify`) the font, the classifier and
    /// the classification: the font first, so that a missing font is reported before a model
    /// is loaded.
    func makeMode() throws -> Mode {
        if command.facesMode { return .faces(try makeFaces()) }
        guard command.classify || command.digits || command.text else {
            let stylizer = try command.deviceOptions.makeStylizer()
            let pipeline = LivePipeline(options: options, stylizer: stylizer, detector: try command.deviceOptions.makeDetector(),
                                        tracker: QuadTracker(options: .blurTolerant),
                                        carrier: QuadTracker(), scene: QuadTracker(options: CoastingQuad.sceneTrackerOptions))
            return .picture(pipeline)
        }
        let renderer: TextRenderer
        do {
            renderer = try TextRenderer(fontPath: command.font)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
        if command.digits { return .digits(try makeDigits(renderer: renderer)) }
        if command.text { return .text(try makeText(renderer: renderer)) }
        let classifier = try ClassifierSetup.make(model: command.model, labels: command.labels, device: command.deviceOptions.choice)
        var classifyOptions = LiveClassificationOptions()
        classifyOptions.lockstep = options.lockstep
        return .classify(LiveClassification(options: classifyOptions, renderer: renderer, classifier: classifier))
    }
}

extension LiveSession {
    /// `--digits`: the note reader as `gpustyle digits` makes it (the detector and the digit
    /// classifier on the chosen device; the straightening warp on the CPU, a few small notes a
    /// reading), on its own thread.
    func makeDigits(renderer: TextRenderer) throws -> LiveDigits {
        let classifier: DigitClassifier
        do {
            classifier = try DigitClassifier(backend: command.deviceOptions.choice.backend(convolutions: []))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "the digit classifier: \(error)")  // the binary's model: not the user's fault
        }
        let reader = NoteReader(detector: try command.deviceOptions.makeDetector(), warper: CPUPerspectiveWarper(), classifier: classifier)
        var digitsOptions = LiveDigitsOptions()
        digitsOptions.lockstep = options.lockstep
        return LiveDigits(options: digitsOptions, renderer: renderer, reader: reader)
    }
}

extension LiveSession {
    /// `--text`: the text reader as `gpustyle text` makes it (both networks on the chosen
    /// device), on its own thread.
    func makeText(renderer: TextRenderer) throws -> LiveText {
        let reader: TextReader
        do {
            reader = try TextReader(backend: command.deviceOptions.choice.backend(convolutions: []))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "the text models: \(error)", status: 1)  // the binary's models: not the user's fault
        }
        var textOptions = LiveTextOptions()
        textOptions.lockstep = options.lockstep
        return LiveText(options: textOptions, renderer: renderer, reader: reader)
    }
}

extension LiveSession {
    /// `--faces` / `--mask`: the detector (on its own thread) and the landmark model (on the
    /// frame loop), each with its own backend on the chosen device, and the masks.
    func makeFaces() throws -> LiveFaces {
        var facesOptions = LiveFacesOptions()
        facesOptions.masks = masks
        facesOptions.lockstep = options.lockstep
        if let smoothing = command.smoothing { facesOptions.smoothing = try LiveCommand.smoothingParameters(smoothing) }
        let detector: FaceDetector, landmarker: FaceLandmarker
        do {
            detector = try FaceDetector(backend: command.deviceOptions.choice.backend(convolutions: []))
            landmarker = try FaceLandmarker(backend: command.deviceOptions.choice.backend(convolutions: []))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "the face models: \(error)")  // the binary's models: not the user's fault
        }
        return LiveFaces(options: facesOptions, landmarker: landmarker, detector: detector)
    }
}

/// SIGINT as a flag the frame loop polls (the loop then flushes and prints its summary);
/// SIGTERM still ends the process through `SignalCleanup` (ffmpeg ended, files removed).
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false

    init() {
        SignalCleanup.shared.override(SIGINT) { [self] in lock.withLock { set = true } }
    }

    var isSet: Bool { lock.withLock { set } }
}

/// `--quad-log`: a JSON line per output frame (`{"frame", "quad", "state", "score", "overlaid", "ms"}`,
/// `"loss"` on the frame where the picture was let go, `"refused"` where a detection was not taken), streamed to the output (`OutputPath`'s rules: a
/// temporary file renamed at the end; a FIFO or device written in place).
final class QuadLog {
    private let file: OutputFile

    init(path: String) throws {
        file = try OutputPath(path).open()
    }

    /// A failed write (a full disk) is an `OutputError`: the run stops and the log is removed.
    func append(_ report: LiveFrameReport, latency: Double) throws {
        let quad = report.quad.map { q in "[" + q.corners.map { String(format: "[%.3f,%.3f]", $0.x, $0.y) }.joined(separator: ",") + "]" } ?? "null"
        let score = report.score.map { String(format: "%.4f", $0) } ?? "null"
        let loss = report.loss.map { ",\"loss\":\"\($0.rawValue)\"" } ?? ""
        let refused = report.refused.map { ",\"refused\":\"\($0.rawValue)\"" } ?? ""
        try file.write(Data(("{\"frame\":\(report.index),\"quad\":\(quad),\"state\":\"\(report.state.rawValue)\","
            + "\"score\":\(score),\"overlaid\":\(report.overlaid),\"ms\":\(String(format: "%.2f", 1000 * latency))\(loss)\(refused)}\n").utf8))
    }

    /// `--digits`: `{"frame", "notes": [{"id", "text", "quad", "reading", "age"}], "lost", "sceneCut"}`,
    /// the notes drawn on the frame.
    func append(_ report: LiveDigitsReport) throws {
        let notes = report.notes.map { note in
            let quad = "[" + note.quad.corners.map { String(format: "[%.3f,%.3f]", $0.x, $0.y) }.joined(separator: ",") + "]"
            return "{\"id\":\(note.id),\"text\":\"\(note.text)\",\"quad\":\(quad),\"reading\":\(note.readingIndex),"
                + "\"age\":\(String(format: "%.3f", note.age))}"
        }.joined(separator: ",")
        try file.write(Data(("{\"frame\":\(report.index),\"notes\":[\(notes)],\"lost\":\(report.lost),"
            + "\"sceneCut\":\(report.sceneCut)}\n").utf8))
    }

    /// `--text`: `{"frame", "lines": [{"id", "reading", "age", "read", "quad", "score",
    /// "confidence", "string", "characters": [{"quad", "character"}]}], "lost", "sceneCut",
    /// "reading"}`, the lines drawn on the frame where they were drawn (`gpustyle text --json`'s
    /// items, with the line's id, the frame of the reading that last saw it, its age in seconds
    /// and the line's quad as read on that frame), and the frame of the reading taken on this
    /// frame (null when none was).
    func append(_ report: LiveTextReport) throws {
        func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        let items = TextReport.items(report.lines.map(\.line), detectOnly: false)
        let lines = zip(report.lines, items).map { line, item in
            item.merging(["id": line.id, "reading": line.readingIndex, "age": rounded(line.age),
                          "read": line.readQuad.corners.map { [rounded($0.x), rounded($0.y)] }]) { $1 }
        }
        let object: [String: Any] = ["frame": report.index, "lines": lines, "lost": report.lost, "sceneCut": report.sceneCut,
                                     "reading": report.readingIndex.map { $0 as Any } ?? NSNull()]
        var data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        try file.write(data)
    }

    /// `--faces`: `{"frame", "faces": [{"id", "confidence", "age", "box": [x, y, width, height],
    /// "regions": {"leftEye": {"centre": [x, y], "width", "height", "rotation"}, ...}}], "lost",
    /// "detection"}`: each face drawn and where a mask of each region goes (pixels, origin
    /// top-left; rotation in radians).
    func append(_ report: LiveFacesReport) throws {
        func number(_ v: Double) -> String { String(format: "%.3f", v) }
        let faces = report.faces.map { face in
            let regions = FaceRegion.allCases.compactMap { region -> String? in
                guard let p = face.placements[region] else { return nil }
                return "\"\(region.rawValue)\":{\"centre\":[\(number(p.centre.x)),\(number(p.centre.y))],\"width\":\(number(p.width)),"
                    + "\"height\":\(number(p.height)),\"rotation\":\(String(format: "%.5f", p.rotation))}"
            }.joined(separator: ",")
            return "{\"id\":\(face.id),\"confidence\":\(String(format: "%.4f", face.confidence)),\"age\":\(number(face.age)),"
                + "\"box\":[\(number(face.box.x)),\(number(face.box.y)),\(number(face.box.width)),\(number(face.box.height))],"
                + "\"regions\":{\(regions)}}"
        }.joined(separator: ",")
        try file.write(Data(("{\"frame\":\(report.index),\"faces\":[\(faces)],\"lost\":\(report.lost),"
            + "\"detection\":\(report.detectionIndex.map(String.init) ?? "null")}\n").utf8))
    }

    func finish(keep: Bool) throws {
        if keep { try file.commit() } else { file.discard() }
    }
}
