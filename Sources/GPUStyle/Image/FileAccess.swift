#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads and atomic writes with POSIX calls, so failures carry the
/// errno text ("No such file or directory", "Permission denied") in one line.
enum FileAccess {
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// Opens `path` for reading (images are then streamed from the descriptor, not read whole).
    static func openForReading(path: String, name: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(name, "cannot open: \(errorText())") }
        return fd
    }

    /// Reads `fd` to its end, refusing more than `limit` bytes ("stdin: more than 1 GiB of
    /// input"). Once `firstBytes` bytes are in, `check` sees them and may throw, so that input
    /// which is clearly wrong is not read to the end first.
    static func readAll(_ fd: Int32, name: String, limit: Int, firstBytes: Int,
                        check: (Data) throws -> Void) throws -> Data {
        var data = Data()
        var checked = false
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageError(name, "cannot read: \(errorText())")
            }
            if n == 0 { return data }
            if n > limit - data.count { throw ImageError(name, "more than \(ByteCount.binary(limit)) of input") }
            data.append(contentsOf: chunk[0..<n])
            if !checked && data.count >= firstBytes {
                checked = true
                try check(data)
            }
        }
    }

    /// Writes all of `data` to `fd`, retrying short writes.
    static func writeAll(_ data: Data, to fd: Int32) -> Int32? {
        data.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }

    /// Replaces `path` with `data` atomically: the bytes go to a hidden temp
    /// file in the same directory (rename(2) is only atomic within one file
    /// system), are flushed, and the temp file is renamed over `path`. On any
    /// failure the temp file is removed, so readers see the old file or the
    /// complete new one, never a partial write. "-" writes to standard output.
    static func writeAtomically(_ data: Data, to path: String) throws {
        if path == "-" {
            if let code = writeAll(data, to: STDOUT_FILENO) {
                throw ImageError("stdout", "cannot write: \(errorText(code))")
            }
            return
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temp = "\(directory)/.\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp"
        // O_EXCL: never clobber someone else's file; 0o666 lets the umask apply
        // as it would for a normally created file (mkstemp would force 0600).
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw ImageError(path, "cannot create file in \(directory): \(errorText())")
        }
        var failure: String?
        if let code = writeAll(data, to: fd) {
            failure = "cannot write: \(errorText(code))"
        } else if fsync(fd) != 0 {
            failure = "cannot flush: \(errorText())"
        }
        if close(fd) != 0, failure == nil { failure = "cannot close: \(errorText())" }
        if failure == nil, rename(temp, path) != 0 { failure = "cannot replace: \(errorText())" }
        if let failure {
            unlink(temp)
            throw ImageError(path, failure)
        }
    }
}
