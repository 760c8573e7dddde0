import Foundation
import GPUStyle

/// ffmpeg as a child process: it does the device and codec work for `gpustyle live`, and Y4M
/// flows through a pipe between us.
struct FFmpeg {
    let executable: URL

    /// ffmpeg from PATH, or a usage-level error saying how to get it.
    static func locate() throws -> FFmpeg {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("ffmpeg")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return FFmpeg(executable: candidate) }
        }
        throw CommandFailure(message: "ffmpeg not found on PATH (install it: apt install ffmpeg)")
    }

    /// A running ffmpeg: our end of its pipe, and its error output captured in a file.
    final class Child {
        let process: Process
        let pipe: Pipe
        let log: URL
        /// `SignalCleanup`'s action ending this ffmpeg when a signal ends us.
        private var cleanup: Int?

        init(process: Process, pipe: Pipe, log: URL) {
            self.process = process
            self.pipe = pipe
            self.log = log
            // Ended before our temporary files are removed: it may be writing one of them.
            cleanup = SignalCleanup.shared.addAction { [process] in Child.end(process) }
        }

        /// Dropped without `finish` (a later step failed): ffmpeg is ended and its log removed.
        deinit {
            guard let cleanup else { return }
            SignalCleanup.shared.removeAction(cleanup)
            Child.end(process)
            unlink(log.path)
            TemporaryFiles.shared.unregister(log.path)
        }

        /// SIGTERM, then up to two seconds for ffmpeg to exit.
        static func end(_ process: Process) {
            guard process.isRunning else { return }
            process.terminate()
            for _ in 0..<200 where process.isRunning { usleep(10_000) }
        }

        /// ffmpeg's last error line, if it wrote one.
        var lastError: String? {
            guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) })
                .map { String($0).trimmingCharacters(in: .whitespaces) }
        }

        /// `lastError` as it was when ffmpeg exited (read by `finish`, before the log goes).
        private(set) var errorAtExit: String?

        /// Waits for ffmpeg to exit; its status.
        func finish() -> Int32 {
            process.waitUntilExit()
            errorAtExit = lastError
            if let cleanup { SignalCleanup.shared.removeAction(cleanup) }
            cleanup = nil
            unlink(log.path)
            TemporaryFiles.shared.unregister(log.path)
            return process.terminationStatus
        }
    }

    /// ffmpeg decoding `arguments`' input to Y4M on a pipe we read.
    func reader(inputArguments: [String]) throws -> Child {
        try spawn(inputArguments + ["-f", "yuv4mpegpipe", "-pix_fmt", "yuv420p", "-"], weRead: true)
    }

    /// ffmpeg encoding the Y4M we write on its pipe to `outputArguments`.
    func writer(outputArguments: [String]) throws -> Child {
        try spawn(["-f", "yuv4mpegpipe", "-i", "-"] + outputArguments, weRead: false)
    }

    private func spawn(_ arguments: [String], weRead: Bool) throws -> Child {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-hide_banner", "-loglevel", "error", "-nostats"] + (weRead ? ["-nostdin"] : []) + arguments
        let pipe = Pipe()
        if weRead {
            process.standardOutput = pipe
            process.standardInput = FileHandle.nullDevice
        } else {
            process.standardInput = pipe
            process.standardOutput = FileHandle.nullDevice
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-ffmpeg-\(getpid())-\(UUID().uuidString).log")
        // Registered, so that a signal ending us removes it too.
        TemporaryFiles.shared.register(log.path)
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            TemporaryFiles.shared.unregister(log.path)
            throw CommandFailure(message: "cannot create a temporary file in \(log.deletingLastPathComponent().path)", status: 1)
        }
        process.standardError = try FileHandle(forWritingTo: log)
        do {
            try process.run()
        } catch {
            unlink(log.path)
            TemporaryFiles.shared.unregister(log.path)
            throw CommandFailure(message: "cannot start ffmpeg: \(error.localizedDescription)")
        }
        return Child(process: process, pipe: pipe, log: log)
    }
}
