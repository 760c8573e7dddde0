#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `gpustyle join`: the parts of a `--shard` run made into one video, with the source's audio.
///
/// The parts must be one complete set: every `I` of `N` given (a glob such as
/// `styled.part-*-of-3.*` gives them), each with its record (`.json`), all made from the same
/// source (size, SHA-256 of the first MiB, duration) with the same options, their frame ranges
/// following each other from 0 to the source's frame count. Then:
///
///     ffmpeg -f concat -safe 0 [-itsoffset V] -i LIST -i SOURCE -map 0:v -map 1:a? -c copy \
///            [-movflags +use_metadata_tags -video_track_timescale N] -metadata gpustyle=DIGEST \
///            -f MUXER DESTINATION
///
/// LIST names each non-empty part with its exact duration (frames / rate: the concat demuxer
/// places each part right after the previous one by it), so frame i is at i / rate as in a
/// one-process run. The source is the record's path, or `source` when given; either way it must
/// still be the file the parts were made from.
public struct VideoJoin {
    public var parts: [String]
    public var output: String
    public var tools: VideoTools
    public var source: String?
    public var force = false

    public init(parts: [String], output: String, tools: VideoTools, source: String? = nil) {
        self.parts = parts
        self.output = output
        self.tools = tools
        self.source = source
    }

    public enum Outcome: Equatable {
        case joined(parts: Int, frames: Int)
        case skipped(String)
    }

    /// Whether `path` is a regular file ffprobe reads with our tag `digest` (made by a run with
    /// the same source and options).
    public static func isFinished(_ path: String, digest: String, tools: VideoTools) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        guard let probe = try? VideoProbe.probe(path, tools: tools) else { return false }
        return probe.tags["gpustyle"] == digest
    }

    /// `dir/styled.part-1-of-3.nut` (or `.json`) → (`dir/styled`, 1, 3).
    static func parseName(_ path: String) -> (stem: String, index: Int, count: Int)? {
        let base = (path as NSString).deletingPathExtension
        guard let range = base.range(of: ".part-", options: .backwards) else { return nil }
        let numbers = base[range.upperBound...].components(separatedBy: "-of-")
        guard numbers.count == 2, let index = Int(numbers[0]), let count = Int(numbers[1]), count >= 1, (0..<count).contains(index) else {
            return nil
        }
        return (String(base[..<range.lowerBound]), index, count)
    }

    public func run() throws -> Outcome {
        guard !parts.isEmpty else { throw VideoError("join: no parts given") }
        var records: [Int: VideoPartRecord] = [:]
        var stem: String?
        var count: Int?
        for path in parts {
            let shown = PrintableText.escaping(path)
            guard let name = Self.parseName(path) else {
                throw VideoError("\(shown): not a part (expected NAME.part-I-of-N.nut or .json, as --shard I/N writes)")
            }
            if let count, count != name.count { throw VideoError("\(shown): a part of \(name.count), not of \(count) like the others") }
            if let stem, stem != name.stem { throw VideoError("\(shown): a part of another output than \(PrintableText.escaping(stem))") }
            stem = name.stem
            count = name.count
            let recordPath = name.stem + ".part-\(name.index)-of-\(name.count).json"
            guard let record = VideoPartRecord.read(recordPath) else {
                throw VideoError("\(PrintableText.escaping(recordPath)): missing or unreadable (the part is not finished: run its --shard \(name.index)/\(name.count) task again)")
            }
            guard record.shard == name.index, record.shards == name.count else {
                throw VideoError("\(PrintableText.escaping(recordPath)): records part \(record.shard) of \(record.shards), not its name's")
            }
            records[name.index] = record
        }
        let n = count!, prefix = stem!
        for index in 0..<n where records[index] == nil {
            throw VideoError("missing part \(index) of \(n): \(PrintableText.escaping(prefix)).part-\(index)-of-\(n).nut (run its --shard \(index)/\(n) task, then join all \(n))")
        }
        let ordered = (0..<n).map { records[$0]! }
        let first = ordered[0]
        var next = 0
        for record in ordered {
            guard record.identity == first.identity, record.totalFrames == first.totalFrames, record.frameRate == first.frameRate else {
                throw VideoError("part \(record.shard) of \(n) was made from another source or with other options than part 0 (run it again)")
            }
            guard record.firstFrame == next else {
                throw VideoError("part \(record.shard) of \(n) starts at frame \(record.firstFrame), not \(next): the parts do not follow each other")
            }
            next += record.frameCount
            if record.frameCount > 0 {
                let file = ((prefix as NSString).deletingLastPathComponent as NSString).appendingPathComponent(record.file ?? "")
                guard record.file != nil, FileManager.default.fileExists(atPath: file) else {
                    throw VideoError("missing part \(record.shard) of \(n): \(PrintableText.escaping(file))")
                }
            }
        }
        guard next == first.totalFrames else {
            throw VideoError("the parts hold \(next) frames of the source's \(first.totalFrames)")
        }
        // The source, for its audio: still the file the parts were made from.
        let sourcePath = source ?? first.source
        let probe = try VideoProbe.probe(sourcePath, tools: tools)
        guard try VideoSourceIdentity.of(sourcePath, probe: probe) == first.identity.source else {
            throw VideoError("\(PrintableText.escaping(sourcePath)): not the source the parts were made from (its size, first MiB or duration differ)")
        }
        let digest = first.identity.digest
        if !force, output != "-", Self.isFinished(output, digest: digest, tools: tools) {
            return .skipped(PrintableText.escaping(output))
        }
        let folder = (prefix as NSString).deletingLastPathComponent
        let rate = first.frameRate.split(separator: "/").compactMap { Int64($0) }
        guard rate.count == 2, rate[0] > 0, rate[1] > 0 else { throw VideoError("part 0: bad frame rate \(first.frameRate)") }
        var list = "ffconcat version 1.0\n"
        for record in ordered where record.frameCount > 0 {
            let file = URL(fileURLWithPath: (folder.isEmpty ? "." : folder as NSString).appendingPathComponent(record.file!)).standardizedFileURL.path
            let micros = (Int64(record.frameCount) * rate[1] * 1_000_000 + rate[0] / 2) / rate[0]
            list += "file '\(file.replacingOccurrences(of: "'", with: "'\\''"))'\n"
            list += String(format: "duration %lld.%06lld\n", micros / 1_000_000, micros % 1_000_000)
        }
        let listPath = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-concat-\(getpid())-\(UUID().uuidString).txt").path
        TemporaryFiles.shared.register(listPath)
        defer {
            unlink(listPath)
            TemporaryFiles.shared.unregister(listPath)
        }
        guard FileManager.default.createFile(atPath: listPath, contents: Data(list.utf8)) else {
            throw VideoError("cannot create a temporary file in \(FileManager.default.temporaryDirectory.path)", isUserError: false)
        }
        let destination = try VideoOutput(output)
        do {
            var arguments = ["-hide_banner", "-loglevel", "error", "-nostats", "-nostdin", "-f", "concat", "-safe", "0"]
            if abs(first.videoOffset) >= 0.000_001 { arguments += ["-itsoffset", String(format: "%.6f", first.videoOffset)] }
            arguments += ["-i", listPath, "-i", sourcePath, "-map", "0:v", "-map", "1:a?", "-c", "copy"]
            let tb = first.timeBase.split(separator: "/").compactMap { Int($0) }
            arguments += VideoOutput.containerArguments(muxer: destination.muxer, timeBase: tb.count == 2 ? (tb[0], tb[1]) : nil)
            arguments += ["-metadata", "gpustyle=\(digest)"] + destination.arguments
            let ffmpeg = try VideoProcess(tools.ffmpeg, arguments, pipe: .none, standardOutput: destination.standardOutput)
            let (status, error) = ffmpeg.finish()
            guard status == 0, error == nil else {
                throw VideoError("ffmpeg could not join the parts into \(destination.name): \(error ?? "exit status \(status)")", isUserError: false)
            }
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
        return .joined(parts: ordered.filter { $0.frameCount > 0 }.count, frames: next)
    }
}
