import Foundation
import GPUStyle

/// Where `gpustyle live` sends its frames: standard output, a Y4M file or device we write
/// ourselves, or anything ffmpeg can write (a video file, a folder of PNGs).
///
/// Files appear only when the run ends well: frames go to a temporary name in the same folder,
/// renamed at the end (a folder of PNGs fills in frame by frame, each file whole).
final class LiveOutput {
    private(set) var descriptor: Int32 = 1
    private var ffmpeg: FFmpeg.Child?
    /// The output file when we or ffmpeg write one (`OutputPath`'s rules: a temporary file
    /// renamed at the end, or a FIFO or device written in place).
    private var file: OutputFile?
    private let destination: String?

    /// The output's name for messages.
    var name: String { OutputPath(destination ?? "-").description }

    init(_ destination: String?) throws {
        self.destination = destination
        guard let destination, destination != "-" else { return }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory)
        if destination.hasSuffix("/") || (exists && isDirectory.boolValue) {
            guard exists, isDirectory.boolValue else { throw CommandFailure(message: "\(destination): no such folder") }
            ffmpeg = try FFmpeg.locate().writer(outputArguments: ["-y", (destination as NSString).appendingPathComponent("%06d.png")])
            descriptor = ffmpeg!.pipe.fileHandleForWriting.fileDescriptor
            return
        }
        let output = OutputPath(destination)
        guard case .replace(let target) = try output.resolve() else {
            // /dev/null, a FIFO, /dev/stdout: Y4M written in place, nothing to make atomic.
            try open(output)
            return
        }
        // A symbolic link's target decides the format (a link out.mp4 -> take3.mkv is Matroska).
        let ext = (target as NSString).pathExtension.lowercased()
        if ext == "y4m" {
            try open(output)
        } else {
            let codec = ["mp4", "mkv", "mov"].contains(ext) ? ["-c:v", "libx264", "-pix_fmt", "yuv420p"] : []
            // We make the temporary file (registered for removal on a signal, with the old
            // file's permissions); ffmpeg writes into it by name.
            let file = try output.open(keepingExtension: true)
            self.file = file
            ffmpeg = try FFmpeg.locate().writer(outputArguments: codec + ["-y", file.temporaryPath!])
            descriptor = ffmpeg!.pipe.fileHandleForWriting.fileDescriptor
        }
    }

    private func open(_ output: OutputPath) throws {
        let file = try output.open()
        self.file = file
        descriptor = file.descriptor
    }

    /// Closes the stream; when `keep`, the output is committed (a temporary file becomes the
    /// destination), else discarded. ffmpeg failing to write is an error (status 1) and
    /// leaves no file.
    func finish(keep: Bool) throws {
        defer { descriptor = -1 }
        if let ffmpeg {
            try? ffmpeg.pipe.fileHandleForWriting.close()
            let status = ffmpeg.finish()
            let error = ffmpeg.errorAtExit
            // ffmpeg exits 0 even when writing the file failed ("Error writing trailer of
            // x.mp4: No space left on device"); at -loglevel error, any line it printed is an
            // error.
            if (status != 0 || error != nil) && keep {
                file?.discard()
                throw CommandFailure(message: "ffmpeg could not write \(destination ?? "the output"): \(error ?? "exit status \(status)")", status: 1)
            }
        }
        if keep { try file?.commit() } else { file?.discard() }
    }
}
