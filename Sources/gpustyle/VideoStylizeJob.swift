import ArgumentParser
import Foundation
import GPUStyle

extension VideoEncoding.Codec: ExpressibleByArgument {}

/// The options only a video input uses (see docs/video.md).
struct VideoOptions: ParsableArguments {
    @Option(name: .customLong("video-codec"),
            help: "With a video: x264 (H.264, CRF 18, the default), x264-lossless (H.264 -qp 0) or ffv1 (lossless, .mkv).")
    var videoCodec: VideoEncoding.Codec = .x264

    @Option(help: ArgumentHelp("With a video: smooth the stylized frames over time where the picture is still (less texture flicker, no trail behind moving things); S from 0 (the default, off) to below 1 (strongest): on a still scene the current frame weighs about 1 - S.",
                               valueName: "S"))
    var smooth: Float = 0

    func validate() throws {
        try Self.checkSmooth(smooth)
    }

    /// The smoothing `--smooth` asks for; nil when off.
    var smoothing: TemporalSmoothing.Parameters? { Self.smoothing(smooth) }

    /// `--smooth` (video files and live): in [0, 1).
    static func checkSmooth(_ value: Float) throws {
        guard value.isFinite, value >= 0, value < 1 else {
            throw ValidationError("--smooth must be at least 0 and below 1 (got \(value))")
        }
    }

    static func smoothing(_ value: Float) -> TemporalSmoothing.Parameters? {
        value > 0 ? TemporalSmoothing.Parameters(strength: value) : nil
    }
}

/// `gpustyle --style N film.mp4 styled.mp4`: the library's `VideoJob` with the command's options,
/// progress on stderr when it is a terminal, a summary under --verbose.
struct VideoStylizeJob {
    let input: String
    let output: String
    let mix: StyleMix
    let strength: Float
    let preserveColor: Bool
    let deviceOptions: DeviceOptions
    let options: VideoOptions
    let batch: BatchOptions

    /// Runs the job; with `--summary`, says what it did: the video (or this task's part of it)
    /// is the one input, done, skipped or failed.
    func run() throws {
        let shard = try batch.resolvedShard()
        try batch.checkSummary()
        var summary = BatchSummary(shard: shard.description, assigned: 1)
        let start = MonotonicClock.seconds()
        do {
            summary.device = try runJob(shard: shard, skipped: &summary.skipped)
            summary.done = 1 - summary.skipped
            summary.seconds = MonotonicClock.seconds() - start
        } catch {
            let failure = (error as? VideoError).map { CommandFailure(message: $0.description, status: $0.isUserError ? 2 : 1) } ?? error
            summary.seconds = MonotonicClock.seconds() - start
            summary.failed = 1
            summary.failures = [.init(file: input, error: (failure as? CommandFailure)?.message ?? "\(failure)")]
            if let path = batch.summary { try? OutputPath(path).write(summary.json()) }
            throw failure
        }
        try batch.finish(summary)
    }

    /// The device that ran (none when nothing needed stylizing).
    private func runJob(shard: Shard, skipped: inout Int) throws -> String {
        let tools = try VideoTools.locate(searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        var job = VideoJob(input: input, output: output, tools: tools, encoding: VideoEncoding(codec: options.videoCodec),
                           styleOptions: "style \(mix.description) strength \(strength)\(preserveColor ? " preserve-color" : "")"
                               + (ConvolutionPrecision.inUse == .bf16 ? " precision=bf16" : ""))
        if batch.shard != nil { job.shard = (shard.index, shard.count) }
        job.force = batch.force
        job.smoothing = options.smoothing
        let showProgress = isatty(STDERR_FILENO) == 1
        let start = MonotonicClock.seconds()
        var lastShown = 0.0
        var stylizer: Stylizer?
        let outcome = try job.run(makeTransform: {
            let made = try deviceOptions.makeStylizer()
            stylizer = made
            return { [mix, strength, preserveColor, input] image in
                do {
                    return try made.stylize(image, mix: mix, strength: strength, preserveColor: preserveColor)
                } catch let error as TilingLayout.BudgetError {
                    throw CommandFailure(message: "\(input): \(error)", status: 1)
                }
            }
        }, notice: { printToStandardError("gpustyle: warning: \($0)") }, progress: { done, total in
            guard showProgress else { return }
            let now = MonotonicClock.seconds()
            guard now - lastShown >= 0.5 || done == total else { return }
            lastShown = now
            let line = String(format: "\r%@: %d/%d frames, %.1f fps", PrintableText.escaping(input), done, total,
                              Double(done) / max(now - start, 1e-9))
            FileHandle.standardError.write(Data((line + (done == total ? "\n" : "")).utf8))
        })
        let seconds = MonotonicClock.seconds() - start
        switch outcome {
        case .skipped(let path):
            skipped = 1
            printToStandardError("gpustyle: \(path) is already done for this source and options (--force to redo it)")
        case .emptyPart(let record):
            printToStandardError("gpustyle: shard \(shard): no frames in this range (fewer keyframes than shards); wrote \(record)")
        case .done(let frames):
            if deviceOptions.verbose {
                printToStandardError(String(format: "%@: %d frames, style %@, %.1f s, %.2f fps -> %@", PrintableText.escaping(input), frames,
                                            mix.description, seconds, Double(frames) / max(seconds, 1e-9), OutputPath(output).description))
            }
        }
        return stylizer?.backend.name ?? "none"
    }
}
