#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// An output opened by `OutputPath.open`: write to `descriptor` (or `write`), then `commit`.
/// Dropped or discarded without a commit, a temporary file is removed and the old file stays.
public final class OutputFile {
    enum Mode {
        /// Standard output: written, never closed.
        case borrowed
        /// A FIFO or device, opened by us.
        case direct
        /// A temporary file renamed over `target` on commit.
        case replace(temporary: String, target: String)
    }

    /// The output's name for messages (escaped).
    public let name: String
    public let descriptor: Int32
    let mode: Mode
    private var finished = false

    init(name: String, descriptor: Int32, mode: Mode) {
        self.name = name
        self.descriptor = descriptor
        self.mode = mode
    }

    deinit { discard() }

    /// The temporary file's path, for a writer that opens it itself (ffmpeg); nil when the
    /// output is written in place.
    public var temporaryPath: String? {
        if case .replace(let temporary, _) = mode { return temporary }
        return nil
    }

    /// Writes all of `bytes`, retrying short and interrupted writes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw writeError(errno)
            }
            offset += n
        }
    }

    public func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// The error for a failed write(2) with `code`.
    public func writeError(_ code: Int32) -> OutputError {
        OutputError(name, "cannot write: \(String(cString: strerror(code)))", isUserError: false)
    }

    /// Finishes the output: a temporary file is flushed to disk, closed and renamed into
    /// place; a device or FIFO is closed. Errors (a full disk shows up at fsync or close on some
    /// file systems) leave the old file as it was.
    public func commit() throws {
        guard !finished else { return }
        finished = true
        switch mode {
        case .borrowed:
            return
        case .direct:
            guard close(descriptor) == 0 || errno == EINTR else { throw failure("cannot close", errno) }
        case .replace(let temporary, let target):
            var failed: OutputError?
            if fsync(descriptor) != 0 {
                failed = failure("cannot write", errno)
            }
            if close(descriptor) != 0, errno != EINTR, failed == nil {
                failed = failure("cannot write", errno)
            }
            if failed == nil, rename(temporary, target) != 0 {
                failed = OutputError(name, "cannot replace the file", errno: errno)
            }
            if let failed {
                unlink(temporary)
                TemporaryFiles.shared.unregister(temporary)
                throw failed
            }
            TemporaryFiles.shared.unregister(temporary)
        }
    }

    /// Abandons the output: a temporary file is removed (the old file stays), a device or FIFO
    /// closed. Does nothing after `commit`.
    public func discard() {
        guard !finished else { return }
        finished = true
        switch mode {
        case .borrowed:
            return
        case .direct:
            close(descriptor)
        case .replace(let temporary, _):
            close(descriptor)
            unlink(temporary)
            TemporaryFiles.shared.unregister(temporary)
        }
    }

    private func failure(_ action: String, _ code: Int32) -> OutputError {
        OutputError(name, "\(action): \(String(cString: strerror(code)))", isUserError: false)
    }
}
