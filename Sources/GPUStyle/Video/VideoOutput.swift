import Foundation

/// Where ffmpeg writes a video, by `OutputPath`'s rules: a regular or new file is written to a
/// hidden temporary file in its folder (same extension, so that the container is the same) and
/// renamed into place by `commit` once ffmpeg succeeded; a FIFO, a device or standard output
/// (`-`) is written in place through ffmpeg's standard output, never replaced, in a container
/// that can stream (the extension's if it has one, else Matroska; MP4, MOV and AVI are refused:
/// their muxers seek back to finish the file).
public final class VideoOutput {
    public let name: String
    /// ffmpeg's muxer (`mp4`, `matroska`, …).
    public let muxer: String
    /// The final path of a regular file (symbolic links followed), nil for a stream.
    public let target: String?
    /// ffmpeg's output arguments (`-f MUXER -y PATH` or `-f MUXER pipe:1`).
    public let arguments: [String]
    /// The descriptor ffmpeg must have as its standard output, for a stream.
    public let standardOutput: Int32?
    private let file: OutputFile

    public init(_ path: String) throws {
        let output = OutputPath(path)
        name = output.description
        let streamTarget: String
        switch try output.resolve() {
        case .replace(let resolved):
            let ext = (resolved as NSString).pathExtension
            guard let muxer = VideoEncoding.container(forExtension: ext)?.muxer else {
                throw VideoError("\(name): unknown video container \"\(ext)\" (use .mp4, .mov, .m4v, .mkv, .webm, .avi or .nut)")
            }
            self.muxer = muxer
            target = resolved
            file = try output.open(keepingExtension: true)
            arguments = ["-f", muxer, "-y", file.temporaryPath!]
            standardOutput = nil
            return
        case .direct(let resolved):
            streamTarget = resolved
        case .descriptor:
            streamTarget = path
        }
        let ext = path == "-" ? "" : (streamTarget as NSString).pathExtension
        let container = ext.isEmpty ? (muxer: "matroska", streams: true) : VideoEncoding.container(forExtension: ext)
        guard let container else { throw VideoError("\(name): unknown video container \"\(ext)\" (use .mkv, .webm or .nut for a pipe)") }
        guard container.streams else {
            throw VideoError("\(name): \(ext) cannot be written to a pipe or device (its muxer seeks back); use .mkv or .nut, or a regular file")
        }
        muxer = container.muxer
        target = nil
        file = try output.open()
        arguments = ["-f", muxer, "pipe:1"]
        standardOutput = file.descriptor
    }

    /// The output is whole: the temporary file becomes the destination (a stream is closed).
    public func commit() throws { try file.commit() }

    /// Abandons the output: a temporary file is removed, the old file (if any) stays.
    public func discard() { file.discard() }

    /// Container-specific options: MP4/MOV keep the source's video time scale (`1/N`) and write
    /// our `gpustyle` metadata tag.
    static func containerArguments(muxer: String, timeBase: (numerator: Int, denominator: Int)?) -> [String] {
        guard muxer == "mp4" || muxer == "mov" else { return [] }
        var arguments = ["-movflags", "+use_metadata_tags"]
        if let timeBase, timeBase.numerator == 1, timeBase.denominator >= 1 { arguments += ["-video_track_timescale", "\(timeBase.denominator)"] }
        return arguments
    }
}
