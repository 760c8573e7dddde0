#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A video failure worded for the user: the file named, one line. `isUserError`: the input or
/// the options are at fault (exit status 2); otherwise ffmpeg or the disk failed (status 1).
public struct VideoError: Error, CustomStringConvertible {
    public let description: String
    public let isUserError: Bool

    public init(_ description: String, isUserError: Bool = true) {
        self.description = description
        self.isUserError = isUserError
    }
}

/// Where ffmpeg and ffprobe are. The library reads no environment: the command line finds them
/// on PATH (`locate(searchPath:)`) and passes them in.
public struct VideoTools: Sendable {
    public let ffmpeg: String
    public let ffprobe: String

    public init(ffmpeg: String, ffprobe: String) {
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// Both programs from a PATH-style list of folders.
    public static func locate(searchPath: String) throws -> VideoTools {
        func find(_ name: String) throws -> String {
            for folder in searchPath.split(separator: ":") {
                let candidate = (String(folder) as NSString).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            throw VideoError("\(name) not found on PATH (install it: apt install ffmpeg)")
        }
        return VideoTools(ffmpeg: try find("ffmpeg"), ffprobe: try find("ffprobe"))
    }
}

/// ffmpeg or ffprobe as a child process: at most one pipe to us (its standard output we read, or
/// its standard input we write), its error output in a temporary log, and ended (SIGTERM) when a
/// signal ends us or when it is dropped without `finish`.
public final class VideoProcess {
    public enum Pipe { case none, read, write }

    public let process: Process
    /// Our end: the read end of its stdout (`.read`) or the write end of its stdin (`.write`).
    public let descriptor: Int32
    private let pipe: Foundation.Pipe?
    private let log: String
    private var cleanup: Int?
    private var finished = false

    /// Starts `executable` with `arguments`. `standardOutput`: a descriptor of ours it writes
    /// to (a FIFO, standard output) when `pipe` is not `.read`.
    public init(_ executable: String, _ arguments: [String], pipe kind: Pipe, standardOutput: Int32? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe: Foundation.Pipe? = kind == .none ? nil : Foundation.Pipe()
        switch kind {
        case .read:
            process.standardOutput = pipe
            process.standardInput = FileHandle.nullDevice
        case .write:
            process.standardInput = pipe
        case .none:
            process.standardInput = FileHandle.nullDevice
        }
        if kind != .read {
            process.standardOutput = standardOutput.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.nullDevice
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-video-\(getpid())-\(UUID().uuidString).log").path
        TemporaryFiles.shared.register(log)
        guard FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) else {
            TemporaryFiles.shared.unregister(log)
            throw VideoError("cannot create a temporary file in \(FileManager.default.temporaryDirectory.path)", isUserError: false)
        }
        process.standardError = handle
        do {
            try process.run()
        } catch {
            unlink(log)
            TemporaryFiles.shared.unregister(log)
            throw VideoError("cannot start \(executable): \(error.localizedDescription)", isUserError: false)
        }
        try? handle.close()
        self.process = process
        self.pipe = pipe
        self.log = log
        switch kind {
        case .read: descriptor = pipe!.fileHandleForReading.fileDescriptor
        case .write: descriptor = pipe!.fileHandleForWriting.fileDescriptor
        case .none: descriptor = -1
        }
        let input = kind == .write ? pipe!.fileHandleForWriting : nil
        cleanup = SignalCleanup.shared.addAction { [process] in VideoProcess.end(process, input: input) }
    }

    deinit {
        if !finished {
            VideoProcess.end(process)
            _ = finish()
        }
    }

    /// Our end of its input closed (it sees the end of the stream), SIGTERM, up to two seconds
    /// for it to exit, then SIGKILL. A signal ending us removes our temporary files only after
    /// this: an ffmpeg still blocked reading our pipe (its read restarts after SIGTERM) would
    /// otherwise finish the output file by name once we are gone, leaving it behind.
    static func end(_ process: Process, input: FileHandle? = nil) {
        try? input?.close()
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { usleep(10_000) }
    }

    /// Ends it now (a failure elsewhere).
    public func terminate() { VideoProcess.end(process) }

    /// Closes our end of a `.write` pipe: the child sees the end of its input.
    public func closeInput() {
        if let pipe { try? pipe.fileHandleForWriting.close() }
    }

    /// Everything it writes on a `.read` pipe, to the end.
    public func readAll() -> Data {
        pipe?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    }

    /// Waits for it to exit: its status and its last error line (at `-loglevel error` any line
    /// is an error; ffmpeg exits 0 even when writing a trailer failed).
    public func finish() -> (status: Int32, error: String?) {
        closeInput()
        process.waitUntilExit()
        finished = true
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let last = text.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) })
            .map { String($0).trimmingCharacters(in: .whitespaces) }
        if let cleanup { SignalCleanup.shared.removeAction(cleanup) }
        cleanup = nil
        unlink(log)
        TemporaryFiles.shared.unregister(log)
        return (process.terminationStatus, last)
    }

    /// Runs to the end and returns its standard output; a failure is a `VideoError` made by `failure`.
    public static func output(_ executable: String, _ arguments: [String],
                              failure: (String) -> VideoError) throws -> Data {
        let child = try VideoProcess(executable, arguments, pipe: .read)
        let data = child.readAll()
        let (status, error) = child.finish()
        guard status == 0 else { throw failure(error ?? "exit status \(status)") }
        return data
    }
}
