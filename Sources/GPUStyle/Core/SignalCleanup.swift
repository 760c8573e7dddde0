#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The write end of the self-pipe; set once before any handler is installed, then only read
/// (by the handler, where nothing but async-signal-safe calls may run).
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// SIGINT and SIGTERM end the process cleanly: registered cleanup actions run (child processes
/// are ended), `TemporaryFiles` are removed, and the exit status is 128 + the signal (130,
/// 143), as a shell reports a process killed by it.
///
/// The signal handler itself only writes the signal number to a pipe (write(2) is
/// async-signal-safe); a thread reading the pipe does the work. A real handler, not SIG_IGN,
/// so that child processes (ffmpeg) start with the default actions again.
public final class SignalCleanup: @unchecked Sendable {
    public static let shared = SignalCleanup()

    private let lock = NSLock()
    private var installed = false
    private var actions: [Int: @Sendable () -> Void] = [:]
    private var nextAction = 0
    private var overrides: [Int32: @Sendable () -> Void] = [:]

    /// Handles `signals` from now on (once per process; later calls add nothing).
    public func install(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let first = lock.withLock { () -> Bool in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        // Close-on-exec: child processes must not hold the pipe.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signalPipe = fds[1]
        let reader = fds[0]
        let thread = Thread { [self] in
            while true {
                var number: Int32 = 0
                let n = read(reader, &number, MemoryLayout<Int32>.size)
                if n < 0 && errno == EINTR { continue }
                guard n == MemoryLayout<Int32>.size else { return }
                handle(number)
            }
        }
        thread.start()
        for number in signals {
            signal(number) { received in
                var value = received
                _ = write(signalPipe, &value, MemoryLayout<Int32>.size)
            }
        }
    }

    /// Runs `action` before the temporary files are removed when a signal ends the process
    /// (ending a child process that writes one of them). Returns a token for `removeAction`.
    public func addAction(_ action: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            nextAction += 1
            actions[nextAction] = action
            return nextAction
        }
    }

    public func removeAction(_ token: Int) {
        lock.withLock { _ = actions.removeValue(forKey: token) }
    }

    /// `signal` calls `handler` instead of ending the process (`live` stops its stream cleanly
    /// on Ctrl-C); nil restores the default.
    public func override(_ number: Int32, with handler: (@Sendable () -> Void)?) {
        lock.withLock { overrides[number] = handler }
    }

    /// Called by the main thread before it reports an error or exits: while a signal is
    /// ending the process, it waits for that (ending ffmpeg makes the main thread see a
    /// failed write, which must not become exit status 1 instead of 143).
    public func holdIfEnding() {
        guard lock.withLock({ ending }) else { return }
        while true { pause() }
    }

    private var ending = false

    private func handle(_ number: Int32) {
        if let handler = lock.withLock({ overrides[number] }) {
            handler()
            return
        }
        let pending = lock.withLock { () -> [@Sendable () -> Void] in
            ending = true
            return actions.sorted { $0.key > $1.key }.map(\.value)
        }
        for action in pending { action() }  // newest first
        TemporaryFiles.shared.removeAllAndExit(status: 128 + number)
    }
}
