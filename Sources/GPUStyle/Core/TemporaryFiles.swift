#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The process's temporary files (outputs being written, child process logs): `SignalCleanup`
/// removes them when a signal ends the process, so that Ctrl-C or a `kill` leaves nothing
/// behind.
public final class TemporaryFiles: @unchecked Sendable {
    public static let shared = TemporaryFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []

    /// Creates `path` (it must not exist) and registers it, in one step under the lock: a signal
    /// handled in between cannot miss the file. Returns the descriptor, or -1 and the errno.
    func create(_ path: String, mode: mode_t) -> (descriptor: Int32, errno: Int32) {
        lock.lock()
        defer { lock.unlock() }
        // O_EXCL: never take over someone else's file.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        let code = errno
        if fd >= 0 { paths.insert(path) }
        return (fd, code)
    }

    /// Registers a file made by someone else (a child process's log).
    public func register(_ path: String) {
        lock.withLock { _ = paths.insert(path) }
    }

    /// The file was renamed into place or removed: nothing left to clean up.
    public func unregister(_ path: String) {
        lock.withLock { _ = paths.remove(path) }
    }

    /// Removes every registered file and ends the process with `status`, holding the lock to
    /// the end so that no new temporary file can appear meanwhile.
    func removeAllAndExit(status: Int32) -> Never {
        lock.lock()
        for path in paths { unlink(path) }
        _exit(status)
    }
}
