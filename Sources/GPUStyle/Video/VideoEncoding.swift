/// How stylized frames are encoded: the codec and its parameters, in one place.
///
/// - `x264` (the default): H.264 by libx264, `-preset medium -crf 18 -pix_fmt yuv420p` —
///   CRF 18 is visually near-transparent for the stylized textures at a modest size.
/// - `x264Lossless`: libx264 with `-qp 0` (lossless in YUV 4:2:0): the decoded frames are
///   exactly the frames we wrote. Plays where H.264 plays; large files.
/// - `ffv1`: FFV1 level 3 (lossless, intra only), for archiving and exact comparisons; Matroska,
///   AVI or NUT only.
public struct VideoEncoding: Sendable, Equatable {
    public enum Codec: String, Sendable, CaseIterable {
        case x264
        case x264Lossless = "x264-lossless"
        case ffv1
    }

    public var codec: Codec
    /// libx264's constant rate factor for `x264` (0-51, lower is better).
    public var crf: Int = 18
    /// libx264's preset for both x264 codecs.
    public var preset: String = "medium"

    public init(codec: Codec = .x264) { self.codec = codec }

    /// ffmpeg's output options for the video stream.
    public var arguments: [String] {
        switch codec {
        case .x264: return ["-c:v", "libx264", "-preset", preset, "-crf", "\(crf)", "-pix_fmt", "yuv420p"]
        case .x264Lossless: return ["-c:v", "libx264", "-preset", preset, "-qp", "0", "-pix_fmt", "yuv420p"]
        case .ffv1: return ["-c:v", "ffv1", "-level", "3", "-pix_fmt", "yuv420p"]
        }
    }

    /// Written into the outputs (with the style options) so that a re-run can tell whether an
    /// existing output was made the same way.
    public var summary: String {
        switch codec {
        case .x264: return "x264 crf \(crf) \(preset)"
        case .x264Lossless: return "x264-lossless \(preset)"
        case .ffv1: return "ffv1 level 3"
        }
    }

    /// ffmpeg's muxer for an output extension, and whether it can be streamed (written to a
    /// pipe or FIFO without seeking back). nil: not a video extension we write.
    public static func container(forExtension ext: String) -> (muxer: String, streams: Bool)? {
        switch ext.lowercased() {
        case "mp4", "m4v": return ("mp4", false)
        case "mov": return ("mov", false)
        case "mkv": return ("matroska", true)
        case "webm": return ("webm", true)
        case "avi": return ("avi", false)
        case "nut": return ("nut", true)
        default: return nil
        }
    }

    /// Why this codec cannot go into the container, if it cannot.
    public func refusal(muxer: String) -> String? {
        switch (codec, muxer) {
        case (_, "webm"): return "WebM holds only VP8/VP9/AV1; write .mkv or .mp4"
        case (.ffv1, "mp4"), (.ffv1, "mov"): return "FFV1 does not go into MP4/MOV; write .mkv"
        default: return nil
        }
    }
}
