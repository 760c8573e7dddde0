import Foundation

/// Writes a Y4M stream to a file descriptor: the header before the first frame, then frames.
public final class Y4MWriter {
    public let header: Y4MHeader
    private let descriptor: Int32
    private var wroteHeader = false
    public private(set) var framesWritten = 0

    /// The reader closed its end of the pipe (SIGPIPE is ignored, so a write fails with EPIPE).
    public struct ClosedError: Error, CustomStringConvertible {
        public let description = "the output was closed"
    }

    public init(fileDescriptor: Int32, header: Y4MHeader) {
        self.descriptor = fileDescriptor
        self.header = header
    }

    public func write(_ frame: YUVFrame) throws {
        precondition(frame.width == header.width && frame.height == header.height && frame.chroma == header.chroma,
                     "frame does not match the stream header")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + frame.y.count + 2 * frame.u.count)
        if !wroteHeader { bytes += Array(header.line.utf8) }
        bytes += Array("FRAME\n".utf8)
        bytes += frame.y
        bytes += frame.u
        bytes += frame.v
        try writeAll(bytes)
        wroteHeader = true
        framesWritten += 1
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EPIPE { throw ClosedError() }
            throw Y4MError("cannot write the output: \(String(cString: strerror(errno)))")
        }
    }
}
