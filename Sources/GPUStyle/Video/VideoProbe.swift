import Foundation

/// What ffprobe says about a video file: the first video stream's size, rate, time base and
/// timing, whether there is audio, and (`probePackets`) each video frame's presentation time and
/// which frames are keyframes.
public struct VideoProbe: Sendable {
    public let path: String
    public var width: Int
    public var height: Int
    /// `r_frame_rate`: the stream's base rate (numerator, denominator).
    public var frameRate: (numerator: Int, denominator: Int)
    /// The video stream's time base (numerator, denominator).
    public var timeBase: (numerator: Int, denominator: Int)
    /// The container's name as ffprobe gives it (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
    public var formatName: String
    /// Seconds: the file's start (the smallest stream start) and the video stream's start.
    public var formatStart: Double
    public var videoStart: Double
    public var duration: Double?
    public var hasAudio: Bool
    /// Format-level tags (keys lower-cased).
    public var tags: [String: String]

    /// The video frames' presentation timestamps in time-base units, in presentation order, and
    /// the indices (into that order) of the keyframes. Filled by `probePackets`.
    public var framePTS: [Int64] = []
    public var keyframes: [Int] = []

    public var frameCount: Int { framePTS.count }

    /// Runs `ffprobe` on the format and streams; a file that is not a video (corrupt, no video
    /// stream) is a user error naming it.
    public static func probe(_ path: String, tools: VideoTools) throws -> VideoProbe {
        let name = PrintableText.escaping(path)
        guard FileManager.default.fileExists(atPath: path) else { throw VideoError("\(name): no such file") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw VideoError("\(name): not readable") }
        let data = try VideoProcess.output(tools.ffprobe, ["-v", "error", "-of", "json", "-show_format", "-show_streams", path]) {
            VideoError("\(name): not a readable video (ffprobe: \($0))")
        }
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]], let format = json["format"] as? [String: Any] else {
            throw VideoError("\(name): not a readable video (ffprobe gave no streams)")
        }
        guard let video = streams.first(where: { $0["codec_type"] as? String == "video"
                                                  && ($0["disposition"] as? [String: Any])?["attached_pic"] as? Int != 1 }) else {
            throw VideoError("\(name): has no video stream")
        }
        guard let width = video["width"] as? Int, let height = video["height"] as? Int, width > 0, height > 0 else {
            throw VideoError("\(name): the video stream has no frame size")
        }
        func fraction(_ text: Any?) -> (Int, Int)? {
            guard let parts = (text as? String)?.split(separator: "/"), parts.count == 2,
                  let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else { return nil }
            return (n, d)
        }
        func seconds(_ text: Any?) -> Double? { (text as? String).flatMap(Double.init) }
        guard let rate = fraction(video["r_frame_rate"]) ?? fraction(video["avg_frame_rate"]) else {
            throw VideoError("\(name): the video stream has no frame rate")
        }
        var tags: [String: String] = [:]
        for (key, value) in (format["tags"] as? [String: Any]) ?? [:] { tags[key.lowercased()] = value as? String }
        return VideoProbe(path: path, width: width, height: height, frameRate: rate,
                          timeBase: fraction(video["time_base"]) ?? (1, 1_000_000),
                          formatName: format["format_name"] as? String ?? "",
                          formatStart: seconds(format["start_time"]) ?? 0,
                          videoStart: seconds(video["start_time"]) ?? seconds(format["start_time"]) ?? 0,
                          duration: seconds(format["duration"]),
                          hasAudio: streams.contains { $0["codec_type"] as? String == "audio" },
                          tags: tags)
    }

    /// Reads the video stream's packets (no decoding): their timestamps, sorted into
    /// presentation order, and the keyframes among them.
    public mutating func probePackets(tools: VideoTools) throws {
        let name = PrintableText.escaping(path)
        let data = try VideoProcess.output(tools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-of", "csv=p=0",
                                                           "-show_entries", "packet=pts,flags", path]) {
            VideoError("\(name): not a readable video (ffprobe: \($0))")
        }
        var packets: [(pts: Int64, key: Bool)] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let pts = Int64(fields[0]) else { continue }  // N/A: not shown
            packets.append((pts, fields[1].hasPrefix("K")))
        }
        guard !packets.isEmpty else { throw VideoError("\(name): the video stream has no frames") }
        packets.sort { $0.pts < $1.pts }
        framePTS = packets.map(\.pts)
        keyframes = packets.indices.filter { packets[$0].key }
    }

    /// Seconds from the start of the file (ffmpeg's `-ss` before `-i` counts from there) to
    /// frame `index`.
    public func seekTime(ofFrame index: Int) -> Double {
        Double(framePTS[index]) * Double(timeBase.numerator) / Double(timeBase.denominator) - formatStart
    }

    /// Whether the frames are evenly spaced (one time-base tick of rounding allowed); nil when
    /// they are.
    public var variableRateNote: String? {
        guard framePTS.count > 2 else { return nil }
        var steps: [Int64] = []
        for i in 1..<framePTS.count { steps.append(framePTS[i] - framePTS[i - 1]) }
        let low = steps.min()!, high = steps.max()!
        guard high - low > 1 else { return nil }
        return "\(PrintableText.escaping(path)): variable frame rate (frame steps \(low)-\(high) of \(timeBase.numerator)/\(timeBase.denominator) s); the output has \(frameCount) frames at a constant \(frameRate.numerator)/\(frameRate.denominator) fps"
    }
}
