import Foundation

/// A video input: by extension (no need to open a photo to decide).
public enum VideoInput {
    public static let extensions: Set<String> = ["mp4", "mov", "mkv", "webm", "avi", "m4v"]

    public static func isVideo(_ path: String) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased())
    }
}

/// What a `--shard` task leaves next to the output besides its part: `NAME.part-I-of-N.json`,
/// written after the part itself (its presence means the part is whole).
public struct VideoPartRecord: Codable, Equatable, Sendable {
    public var kind = "gpustyle video part"
    /// The source's absolute path (join copies its audio from there).
    public var source: String
    public var identity: VideoJobIdentity
    public var shard: Int
    public var shards: Int
    /// Frames `firstFrame ..< firstFrame + frameCount` of `totalFrames` (presentation order).
    public var firstFrame: Int
    public var frameCount: Int
    public var totalFrames: Int
    /// The source's `r_frame_rate` and video time base (`n/d`), and its video start from the
    /// file's start in seconds.
    public var frameRate: String
    public var timeBase: String
    public var videoOffset: Double
    /// The part's video file name (in the record's folder); nil for an empty range.
    public var file: String?

    /// The part's file and record for `output` (`dir/styled.mp4` → `dir/styled.part-I-of-N.nut`
    /// and `.json`). Parts are NUT files: NUT keeps timestamps in the stream's own time base, so
    /// joining them gives the timestamps of a one-process run.
    public static func paths(output: String, shard: Int, shards: Int) -> (part: String, record: String) {
        let folder = (output as NSString).deletingLastPathComponent
        let stem = ((output as NSString).lastPathComponent as NSString).deletingPathExtension
        let base = (folder as NSString).appendingPathComponent("\(stem).part-\(shard)-of-\(shards)")
        return (base + ".nut", base + ".json")
    }

    static func read(_ path: String) -> VideoPartRecord? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(VideoPartRecord.self, from: data)
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try OutputPath(path).write(try encoder.encode(self) + Data("\n".utf8))
    }
}

/// Stylizes one video file (or, with a shard, one part of it), skipping work already done.
public struct VideoJob {
    public var input: String
    public var output: String
    public var tools: VideoTools
    public var encoding: VideoEncoding
    /// The style options as text (`style 3:0.5,12:0.5 strength 1`), part of the identity.
    public var styleOptions: String
    /// `(index, count)` for a `--shard` task; nil: the whole video into `output`.
    public var shard: (index: Int, count: Int)?
    /// Redo work even when a finished output or part is there.
    public var force = false
    /// Temporal smoothing of the stylized frames (`--smooth`); nil = off. Part of the identity.
    public var smoothing: TemporalSmoothing.Parameters?

    public init(input: String, output: String, tools: VideoTools, encoding: VideoEncoding, styleOptions: String) {
        self.input = input
        self.output = output
        self.tools = tools
        self.encoding = encoding
        self.styleOptions = styleOptions
    }

    public enum Outcome: Equatable {
        /// Frames stylized, of the video's (or the part's) frames.
        case done(frames: Int)
        /// An output or part made from the same source and options is already there.
        case skipped(String)
        /// This shard's range is empty (fewer keyframes than shards): only its record is written.
        case emptyPart(String)
    }

    /// Runs the job. `makeTransform` is called only when there is work (so that a skipped job
    /// starts no device); `notice` receives warnings (a variable frame rate); `progress` frames
    /// done and the total.
    public func run(makeTransform: () throws -> (Image) throws -> Image, notice: (String) -> Void,
                    progress: (Int, Int) -> Void) throws -> Outcome {
        var probe = try VideoProbe.probe(input, tools: tools)
        do {
            try Stylizer.validate(width: probe.width, height: probe.height)
        } catch let error as Stylizer.InputError {
            throw VideoError("\(PrintableText.escaping(input)): \(error)")
        }
        try probe.probePackets(tools: tools)
        let identity = VideoJobIdentity(source: try VideoSourceIdentity.of(input, probe: probe),
                                        options: "\(styleOptions) \(encoding.summary)" + (smoothing.map { " \($0)" } ?? ""))
        guard let shard else {
            return try runWhole(probe: probe, identity: identity, makeTransform: makeTransform, notice: notice, progress: progress)
        }
        guard output != "-" else { throw VideoError("--shard writes parts next to the output: give an output file, not -") }
        let ranges = VideoRanges.split(frameCount: probe.frameCount, keyframes: probe.keyframes, parts: shard.count)
        let range = ranges[shard.index]
        let (partPath, recordPath) = VideoPartRecord.paths(output: output, shard: shard.index, shards: shard.count)
        var record = VideoPartRecord(source: URL(fileURLWithPath: input).standardizedFileURL.path, identity: identity,
                                     shard: shard.index, shards: shard.count, firstFrame: range.lowerBound,
                                     frameCount: range.count, totalFrames: probe.frameCount,
                                     frameRate: "\(probe.frameRate.numerator)/\(probe.frameRate.denominator)",
                                     timeBase: "\(probe.timeBase.numerator)/\(probe.timeBase.denominator)",
                                     videoOffset: probe.videoStart - probe.formatStart,
                                     file: range.isEmpty ? nil : (partPath as NSString).lastPathComponent)
        if !force, let old = VideoPartRecord.read(recordPath), old == record,
           range.isEmpty || FileManager.default.fileExists(atPath: partPath) {
            return .skipped(PrintableText.escaping(range.isEmpty ? recordPath : partPath))
        }
        // A stale record goes first: killed from here on, the task leaves no record claiming a part.
        unlink(recordPath)
        // What a task killed by SIGKILL left (its temporary part and record).
        OutputPath.removeLeftovers(of: [(partPath as NSString).lastPathComponent, (recordPath as NSString).lastPathComponent],
                                   in: OutputPath.folder(of: partPath))
        if range.isEmpty {
            unlink(partPath)
            try record.write(to: recordPath)
            return .emptyPart(PrintableText.escaping(recordPath))
        }
        if let note = probe.variableRateNote { notice(note) }
        let stylizer = VideoStylizer(tools: tools, probe: probe, encoding: encoding)
        let transform = try makeTransform()
        let destination = try VideoOutput(partPath)
        let frames: Int
        do {
            frames = try stylizer.run(frames: range, exactCount: true, audio: false, output: destination, tag: identity.digest,
                                      smoothing: smoothing, transform: transform, progress: { progress($0, range.count) })
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
        record.frameCount = frames
        try record.write(to: recordPath)
        return .done(frames: frames)
    }

    private func runWhole(probe: VideoProbe, identity: VideoJobIdentity, makeTransform: () throws -> (Image) throws -> Image,
                          notice: (String) -> Void, progress: (Int, Int) -> Void) throws -> Outcome {
        if !force, output != "-", VideoJoin.isFinished(output, digest: identity.digest, tools: tools) {
            return .skipped(PrintableText.escaping(output))
        }
        if let note = probe.variableRateNote { notice(note) }
        if output != "-", case .replace(let target)? = try? OutputPath(output).resolve() {
            OutputPath.removeLeftovers(of: [(target as NSString).lastPathComponent], in: OutputPath.folder(of: target))
        }
        let destination = try VideoOutput(output)
        if let refusal = encoding.refusal(muxer: destination.muxer) {
            destination.discard()
            throw VideoError("\(destination.name): \(refusal)")
        }
        let frames: Int
        do {
            let transform = try makeTransform()
            frames = try VideoStylizer(tools: tools, probe: probe, encoding: encoding)
                .run(frames: 0..<probe.frameCount, exactCount: false, audio: true, output: destination, tag: identity.digest,
                     smoothing: smoothing, transform: transform, progress: { progress($0, probe.frameCount) })
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
        if frames != probe.frameCount {
            notice("\(PrintableText.escaping(input)): ffmpeg decoded \(frames) frames of the \(probe.frameCount) the file lists")
        }
        return .done(frames: frames)
    }
}
