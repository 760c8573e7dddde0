#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Whole-file reads and complete writes with POSIX calls, so failures carry the
/// errno text ("No such file or directory", "Permission denied") in one line.
enum FileAccess {
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// Reads a whole file, or standard input for "-".
    static func read(path: String, name: String) throws -> Data {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(name, "cannot open: \(errorText())") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImageError(name, "cannot read: \(errorText())")
            }
            if n == 0 { return data }
            data.append(contentsOf: chunk[0..<n])
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
}
