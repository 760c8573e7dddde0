import Foundation

/// Which source a part or an output was made from, cheap to compute on a large file: its size,
/// the SHA-256 of its first MiB, and its duration as ffprobe reads it.
public struct VideoSourceIdentity: Codable, Equatable, Sendable {
    public var size: Int64
    public var sha256FirstMiB: String
    public var duration: String

    public static let hashedBytes = 1 << 20

    public static func of(_ path: String, probe: VideoProbe) throws -> VideoSourceIdentity {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw VideoError("\(PrintableText.escaping(path)): not readable")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: hashedBytes)) ?? Data()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? Int64(head.count)
        return VideoSourceIdentity(size: size, sha256FirstMiB: SHA256.hex(head),
                                   duration: probe.duration.map { String(format: "%.6f", $0) } ?? "unknown")
    }
}

/// The source and the options an output is made with; its digest is stored in the output's
/// metadata (tag `gpustyle`) and in each part's record, so that a re-run can skip finished work.
public struct VideoJobIdentity: Codable, Equatable, Sendable {
    public var source: VideoSourceIdentity
    /// Style, strength and encoding, e.g. `style 3:0.5,12:0.5 strength 1 x264 crf 18 medium`.
    public var options: String

    public init(source: VideoSourceIdentity, options: String) {
        self.source = source
        self.options = options
    }

    public var digest: String {
        SHA256.hex(Data("\(source.size) \(source.sha256FirstMiB) \(source.duration) \(options)".utf8))
    }
}
