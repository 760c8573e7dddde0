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
    private var temporary: String?
    private let destination: String?

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
        try OutputPath.checkWritable(destination)
        var status = stat()
        if exists, stat(destination, &status) == 0, (status.st_mode & S_IFMT) == S_IFCHR {
            // /dev/null and the like: nothing to make atomic.
            descriptor = open(destination, O_WRONLY)
            guard descriptor >= 0 else { throw CommandFailure(message: "\(destination): cannot open for writing") }
            return
        }
        let ext = (destination as NSString).pathExtension
        let partial = OutputPath.temporary(for: destination, keepingExtension: true)
        temporary = partial
        if ext.lowercased() == "y4m" {
            descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw CommandFailure(message: "\(destination): cannot create the file") }
        } else {
            let codec = ["mp4", "mkv", "mov"].contains(ext.lowercased()) ? ["-c:v", "libx264", "-pix_fmt", "yuv420p"] : []
            ffmpeg = try FFmpeg.locate().writer(outputArguments: codec + ["-y", partial])
            descriptor = ffmpeg!.pipe.fileHandleForWriting.fileDescriptor
        }
    }

    /// Closes the stream; when `keep`, the temporary file becomes the destination.
    func finish(keep: Bool) throws {
        if let ffmpeg {
            try? ffmpeg.pipe.fileHandleForWriting.close()
            let error = ffmpeg.lastError
            let status = ffmpeg.finish()
            if status != 0 && keep {
                discard()
                throw CommandFailure(message: "ffmpeg could not write \(destination ?? "the output"): \(error ?? "exit status \(status)")", status: 1)
            }
        } else if descriptor > 2 {
            close(descriptor)
        }
        descriptor = -1
        guard let temporary, let destination else { return }
        if keep {
            guard rename(temporary, destination) == 0 else {
                discard()
                throw CommandFailure(message: "\(destination): cannot write the file", status: 1)
            }
        } else {
            discard()
        }
    }

    private func discard() {
        if let temporary { unlink(temporary) }
    }
}
