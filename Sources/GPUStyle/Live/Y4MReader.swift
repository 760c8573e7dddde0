import Foundation

/// Reads a Y4M stream from a file descriptor (a pipe from ffmpeg, or a file).
///
/// `next()` returns nil at a clean end of stream (after a whole frame) and throws `Y4MError` for a
/// stream that is malformed or ends inside a frame.
public final class Y4MReader {
    public let header: Y4MHeader
    private let source: FileDescriptorSource
    private let frameBytes: Int
    /// Frames read so far.
    public private(set) var framesRead = 0

    /// Reads the header. The descriptor is not closed by the reader.
    public init(fileDescriptor: Int32) throws {
        source = FileDescriptorSource(fileDescriptor)
        guard let line = try source.line(maximumLength: 4096) else {
            throw Y4MError("empty input: no Y4M header")
        }
        header = try Y4MHeader(line: line)
        frameBytes = YUVFrame.byteCount(width: header.width, height: header.height, chroma: header.chroma)
    }

    public func next() throws -> YUVFrame? {
        guard let marker = try source.line(maximumLength: 4096) else { return nil }
        guard marker == "FRAME" || marker.hasPrefix("FRAME ") else {
            throw Y4MError("frame \(framesRead): expected FRAME, found \"\(marker.prefix(20))\"")
        }
        let bytes = Array(try source.read(count: frameBytes))
        guard bytes.count == frameBytes else {
            throw Y4MError("stream ends inside frame \(framesRead) (\(bytes.count) of \(frameBytes) bytes)")
        }
        let lumaCount = header.width * header.height
        let c = header.chroma.chromaSize(width: header.width, height: header.height)
        let chromaCount = c.width * c.height
        framesRead += 1
        return YUVFrame(width: header.width, height: header.height, chroma: header.chroma,
                        y: Array(bytes[0..<lumaCount]),
                        u: Array(bytes[lumaCount..<(lumaCount + chromaCount)]),
                        v: Array(bytes[(lumaCount + chromaCount)...]))
    }
}

/// Buffered reads from a file descriptor: lines for the headers, exact counts for the planes.
/// Consumed bytes are dropped at each refill, so the buffer stays about one frame large.
final class FileDescriptorSource {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Index of the first unconsumed byte of `buffer`.
    private var start = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Appends at least one more byte unless the stream has ended.
    private func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); return }
            if n == 0 { atEnd = true; return }
            if errno == EINTR { continue }
            throw Y4MError("cannot read the input: \(FileAccess.errorText())")
        }
    }

    /// The next line without its newline; nil at the end of the stream before any byte.
    func line(maximumLength: Int) throws -> String? {
        var searched = 0  // bytes after `start` already known to hold no newline
        while true {
            if let newline = buffer[(start + searched)...].firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return text
            }
            searched = buffer.count - start
            guard searched <= maximumLength else { throw Y4MError("header line longer than \(maximumLength) bytes: not a Y4M stream") }
            if atEnd {
                guard searched > 0 else { return nil }
                throw Y4MError("stream ends inside a header line")
            }
            try fill()
        }
    }

    /// Up to `count` bytes (fewer only at the end of the stream).
    func read(count: Int) throws -> ArraySlice<UInt8> {
        while buffer.count - start < count && !atEnd { try fill() }
        let end = min(buffer.count, start + count)
        let bytes = buffer[start..<end]
        start = end
        return bytes
    }
}
