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
        var bytes = Data(capacity: 64 + frame.y.count + 2 * frame.u.count)
        if !wroteHeader { bytes.append(contentsOf: header.line.utf8) }
        bytes.append(contentsOf: "FRAME\n".utf8)
        bytes.append(contentsOf: frame.y)
        bytes.append(contentsOf: frame.u)
        bytes.append(contentsOf: frame.v)
        if let code = FileAccess.writeAll(bytes, to: descriptor) {
            if code == EPIPE { throw ClosedError() }
            throw Y4MError("cannot write the output: \(FileAccess.errorText(code))")
        }
        wroteHeader = true
        framesWritten += 1
    }
}
