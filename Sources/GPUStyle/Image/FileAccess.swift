#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads and complete writes with POSIX calls, so failures carry the
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
}
