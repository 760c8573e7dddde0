#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The frame loop: ffmpeg decodes a range of the source to Y4M (4:2:0) on a pipe, each frame is
/// converted to RGB, stylized by `transform` and converted back (BT.601, the stream's range), and
/// a second ffmpeg encodes the frames we write on its pipe, with the source's audio copied when
/// asked.
///
/// Decoding (frames `start ..< end` of `probe`):
///
///     ffmpeg -nostdin [-ss T] -i SOURCE -map 0:v:0 -fps_mode passthrough -frames:v COUNT \
///            -f yuv4mpegpipe -pix_fmt yuv420p -
///
/// with T the start frame's timestamp (a keyframe) rounded down to the microsecond, from the
/// file's start; `-fps_mode passthrough` gives every decoded frame once (no frame duplicated or
/// dropped for a variable-rate source). Encoding:
///
///     ffmpeg -f yuv4mpegpipe [-itsoffset V] -i - [-i SOURCE] -map 0:v:0 [-map 1:a? -c:a copy] \
///            CODEC… -fps_mode passthrough [-movflags +use_metadata_tags -video_track_timescale N] \
///            -metadata gpustyle=DIGEST -f MUXER DESTINATION
///
/// The Y4M stream carries the source's `r_frame_rate`, so frame i is at i / rate; V is the
/// video stream's start from the file's start (ffmpeg moves a file's streams to start at 0 and
/// the audio, copied, keeps its offset from the video).
public struct VideoStylizer {
    public let tools: VideoTools
    public let probe: VideoProbe
    public let encoding: VideoEncoding

    public init(tools: VideoTools, probe: VideoProbe, encoding: VideoEncoding) {
        self.tools = tools
        self.probe = probe
        self.encoding = encoding
    }

    /// `-ss`'s value for frame `index`: its time from the file's start, rounded down to the
    /// microsecond (ffmpeg keeps frames at or after it; one microsecond early cannot reach the
    /// frame before).
    public func seekArgument(frame index: Int) -> String {
        let tb = probe.timeBase
        let micros = probe.framePTS[index] * Int64(tb.numerator) * 1_000_000
        var floorMicros = micros / Int64(tb.denominator)
        if micros % Int64(tb.denominator) != 0 && micros < 0 { floorMicros -= 1 }
        let value = floorMicros - Int64((probe.formatStart * 1_000_000).rounded())
        return value < 0 ? "0" : String(format: "%lld.%06lld", value / 1_000_000, value % 1_000_000)
    }

    /// Where decoding starts for `frames` when the `warmUp` frames before them must be stylized
    /// too: the last keyframe at or before frame `frames.lowerBound − warmUp` (frame 0 when
    /// there is none), and the first frame to stylize.
    public func decodeStart(frames: Range<Int>, warmUp: Int) -> (keyframe: Int, stylizeFrom: Int) {
        let first = max(0, frames.lowerBound - warmUp)
        guard first < frames.lowerBound else { return (frames.lowerBound, frames.lowerBound) }
        return (probe.keyframes.filter { $0 <= first }.max() ?? 0, first)
    }

    /// Stylizes `frames` into `output`. `audio`: copy the source's audio streams. Returns the
    /// number of frames written; for a part (`exactCount`) fewer frames than the range is an error.
    ///
    /// `smoothing`: each stylized frame goes through a `TemporalSmoothing`. Its output depends on
    /// the `window` frames before it, so a range that does not start at frame 0 first decodes
    /// from the keyframe before them (`decodeStart`), stylizes and smooths those frames without
    /// writing them, then writes its own: a part's frames are the one-process run's frames.
    public func run(frames: Range<Int>, exactCount: Bool, audio: Bool, output: VideoOutput, tag: String,
                    smoothing: TemporalSmoothing.Parameters? = nil,
                    transform: (Image) throws -> Image, progress: (Int) -> Void) throws -> Int {
        let name = PrintableText.escaping(probe.path)
        let (decodeFrom, stylizeFrom) = decodeStart(frames: frames, warmUp: smoothing?.window ?? 0)
        var smoother = smoothing.map(TemporalSmoothing.init)
        var decode = ["-hide_banner", "-loglevel", "error", "-nostats", "-nostdin"]
        if decodeFrom > 0 { decode += ["-ss", seekArgument(frame: decodeFrom)] }
        decode += ["-i", probe.path, "-map", "0:v:0", "-fps_mode", "passthrough"]
        if exactCount { decode += ["-frames:v", "\(frames.upperBound - decodeFrom)"] }
        decode += ["-f", "yuv4mpegpipe", "-pix_fmt", "yuv420p", "-"]
        let reader = try VideoProcess(tools.ffmpeg, decode, pipe: .read)
        let y4m: Y4MReader
        do {
            y4m = try Y4MReader(fileDescriptor: reader.descriptor)
        } catch {
            reader.terminate()
            let detail = reader.finish().error
            throw VideoError("\(name): ffmpeg could not decode it: \(detail ?? "\(error)")")
        }
        var header = y4m.header
        header.frameRate = probe.frameRate
        let offset = probe.videoStart - probe.formatStart
        var encode = ["-hide_banner", "-loglevel", "error", "-nostats", "-f", "yuv4mpegpipe"]
        if audio && abs(offset) >= 0.000_001 { encode += ["-itsoffset", String(format: "%.6f", offset)] }
        encode += ["-i", "-"]
        if audio { encode += ["-i", probe.path] }
        encode += ["-map", "0:v:0"]
        if audio { encode += ["-map", "1:a?", "-c:a", "copy"] }
        encode += encoding.arguments + ["-fps_mode", "passthrough"]
        encode += VideoOutput.containerArguments(muxer: output.muxer, timeBase: probe.timeBase)
        encode += ["-metadata", "gpustyle=\(tag)"] + output.arguments
        let writer = try VideoProcess(tools.ffmpeg, encode, pipe: .write, standardOutput: output.standardOutput)
        let y4mWriter = Y4MWriter(fileDescriptor: writer.descriptor, header: header)
        var written = 0
        var failure: Error?
        do {
            var next = decodeFrom
            while let frame = try y4m.next() {
                let index = next
                next += 1
                if index < stylizeFrom { continue }  // before the warm-up: decoded only to reach it
                let image = YUVConversion.image(from: frame, fullRange: header.fullRange)
                var styled = try transform(image)
                if smoother != nil { styled = smoother!.apply(input: image, stylized: styled) }
                if index < frames.lowerBound { continue }  // the warm-up: smoothed, not written
                try y4mWriter.write(YUVConversion.frame(from: styled, chroma: header.chroma, fullRange: header.fullRange))
                written += 1
                progress(written)
            }
        } catch is Y4MWriter.ClosedError {
            failure = nil  // ffmpeg's own error is reported below
        } catch let error as Y4MError {
            failure = VideoError("\(name): \(error)", isUserError: false)
        } catch {
            failure = error
        }
        if failure != nil { reader.terminate() }
        let decoded = reader.finish()
        let encoded = writer.finish()
        if let failure { throw failure }
        if decoded.status != 0 {
            throw VideoError("\(name): ffmpeg could not decode it: \(decoded.error ?? "exit status \(decoded.status)")", isUserError: false)
        }
        if encoded.status != 0 || encoded.error != nil {
            throw VideoError("ffmpeg could not write \(output.name): \(encoded.error ?? "exit status \(encoded.status)")", isUserError: false)
        }
        if exactCount && written != frames.count {
            throw VideoError("\(name): decoded \(written) of the \(frames.count) frames \(frames.lowerBound)-\(frames.upperBound - 1) after seeking to the keyframe", isUserError: false)
        }
        return written
    }
}
