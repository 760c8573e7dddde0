import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle --style N film.mp4 styled.mp4` and `gpustyle join` end to end, on a clip ffmpeg makes
/// at test time: testsrc2 160x96, 2 s at 12 fps (24 frames), a keyframe every 6 frames, a sine
/// audio track.
final class VideoStylizeCLITests: XCTestCase {
    static let ffprobe = "/usr/bin/ffprobe"
    var folder: URL!
    var clip: String!

    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.ffprobe), "ffprobe is not installed")
        folder = try LiveTestSupport.temporaryDirectory()
        clip = path("clip.mp4")
        let made = try TestProcess.run(LiveTestSupport.ffmpeg, [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=12",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050", "-t", "2", "-c:v", "libx264", "-g", "6",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func stylize(_ arguments: [String]) throws -> ProcessResult {
        try TestProcess.gpustyle(["--style", "2", "--device", "cpu"] + arguments)
    }

    func probe(_ file: String, _ entries: String, stream: String = "v:0") throws -> String {
        let result = try TestProcess.run(Self.ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "csv=p=0", file])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Each frame's (and audio packet's) timestamp and MD5 of its decoded content.
    func frameHashes(_ file: String) throws -> [String] {
        let result = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", file, "-map", "0:v", "-map", "0:a?",
                                                                  "-c:a", "copy", "-f", "framemd5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("partial") }
    }

    func testFrameCountRateTimestampsAndAudioAreKept() throws {
        let out = path("styled.mp4")
        let result = try stylize(["--verbose", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("24 frames"), result.stderr)
        XCTAssertEqual(try probe(out, "stream=r_frame_rate,time_base"), try probe(clip, "stream=r_frame_rate,time_base"))
        XCTAssertEqual(try probe(out, "frame=pts"), try probe(clip, "frame=pts"))
        XCTAssertEqual(try probe(out, "stream=codec_name", stream: "a:0"), "aac")
        XCTAssertEqual(try probe(out, "packet=pts,size", stream: "a:0"), try probe(clip, "packet=pts,size", stream: "a:0"))
        XCTAssertEqual(try leftovers(), [])
        // A second run with the same source and options finds the output done.
        let again = try stylize([clip, out])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("already done"), again.stderr)
    }

    /// A frame of the video is the frame stylized as a photo: frame 7 decoded and converted to
    /// RGB as the video path does, written as a PNG, stylized by the photo command, converted
    /// back to 4:2:0 — equal to the video's frame 7 (encoded losslessly) within the PNG's 8-bit
    /// rounding of the network's input.
    func testFramesAreThePhotoStylization() throws {
        let out = path("styled.mkv")
        let result = try stylize(["--strength", "0.8", "--video-codec", "ffv1", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        func frames(_ file: String) throws -> (Y4MHeader, [YUVFrame]) {
            let decoded = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", file,
                                                                       "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", "-pix_fmt", "yuv420p", "-"])
            XCTAssertEqual(decoded.status, 0, decoded.stderr)
            return try LiveTestSupport.parse(decoded.stdout)
        }
        let (header, source) = try frames(clip)
        let (_, styled) = try frames(out)
        XCTAssertEqual(styled.count, 24)
        let photo = path("frame7.png"), styledPhoto = path("frame7-styled.png")
        try ImageIO.writePNG(YUVConversion.image(from: source[7], fullRange: header.fullRange), to: photo)
        let photoRun = try stylize(["--strength", "0.8", photo, styledPhoto])
        XCTAssertEqual(photoRun.status, 0, photoRun.stderr)
        let expected = YUVConversion.frame(from: try ImageIO.read(path: styledPhoto), chroma: header.chroma, fullRange: header.fullRange)
        func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
            Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
        }
        let got = styled[7]
        for (name, a, b) in [("Y", expected.y, got.y), ("U", expected.u, got.u), ("V", expected.v, got.v)] {
            XCTAssertLessThan(meanDifference(a, b), 1, "plane \(name): the video frame should be the stylized photo")
        }
        XCTAssertGreaterThan(meanDifference(source[7].y, got.y), 10, "the video frame should be stylized")
    }

    /// Three --shard tasks and join give the one-process run: same frames (lossless: same
    /// pixels), same timestamps, same audio. A missing part is refused, naming it.
    func testShardsJoinedAreTheOneProcessRun() throws {
        let whole = path("whole.mp4")
        var result = try stylize(["--video-codec", "x264-lossless", clip, whole])
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = path("styled.mp4")
        for index in [0, 2] {
            result = try stylize(["--video-codec", "x264-lossless", "--shard", "\(index)/3", clip, out])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let joined = path("joined.mp4")
        result = try TestProcess.gpustyle(["join", path("styled.part-0-of-3.nut"), path("styled.part-2-of-3.nut"), joined])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("missing part 1 of 3"), result.stderr)
        XCTAssertTrue(result.stderr.contains("styled.part-1-of-3.nut"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: joined))
        result = try stylize(["--video-codec", "x264-lossless", "--shard", "1/3", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try probe(path("styled.part-1-of-3.nut"), "packet=pts").split(separator: "\n").count, 12)  // frames 6-17
        let parts = (0..<3).map { path("styled.part-\($0)-of-3.nut") }
        result = try TestProcess.gpustyle(["join"] + parts + [joined])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try frameHashes(whole)
        XCTAssertEqual(expected.count, 24 + 45)
        XCTAssertEqual(try frameHashes(joined), expected)
        XCTAssertEqual(try probe(joined, "stream=r_frame_rate,time_base"), try probe(whole, "stream=r_frame_rate,time_base"))
        XCTAssertEqual(try leftovers(), [])
    }

    /// `--smooth`: each frame's output depends on the 8 frames before it, so every part after the
    /// first stylizes the 8 frames before its start without writing them (part 1, frames 6-17,
    /// warms up on 0-5; part 2, frames 18-23, decodes from keyframe 6 and warms up on 10-17):
    /// 3 tasks and join are the one-process run, pixel for pixel (FFV1). The smoothing is part
    /// of the identity: another strength redoes a part; out of range is one line, status 2.
    func testSmoothedShardsJoinedAreTheOneProcessRun() throws {
        let whole = path("whole.mkv"), plain = path("plain.mkv")
        var result = try stylize(["--smooth", "0.8", "--video-codec", "ffv1", clip, whole])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try stylize(["--video-codec", "ffv1", clip, plain])
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = path("styled.mkv")
        for index in 0..<3 {
            result = try stylize(["--smooth", "0.8", "--video-codec", "ffv1", "--shard", "\(index)/3", clip, out])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let joined = path("joined.mkv")
        result = try TestProcess.gpustyle(["join"] + (0..<3).map { path("styled.part-\($0)-of-3.nut") } + [joined])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try frameHashes(whole)
        XCTAssertEqual(expected.count, 24 + 45)
        XCTAssertEqual(try frameHashes(joined), expected)
        let plainVideo = try frameHashes(plain).filter { !$0.hasPrefix("1,") }
        let smoothedVideo = expected.filter { !$0.hasPrefix("1,") }
        XCTAssertEqual(plainVideo.count, 24)
        XCTAssertEqual(plainVideo.first, smoothedVideo.first, "frame 0 has nothing before it to smooth with")
        XCTAssertGreaterThan(zip(plainVideo, smoothedVideo).filter { $0 != $1 }.count, 20, "the smoothing changes the frames")
        result = try stylize(["--smooth", "0.8", "--video-codec", "ffv1", "--shard", "2/3", clip, out])
        XCTAssertTrue(result.stderr.contains("already done"), result.stderr)
        result = try stylize(["--smooth", "0.5", "--video-codec", "ffv1", "--shard", "2/3", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("already done"), result.stderr)
        for bad in ["1", "-0.1", "nan", "soft"] {
            result = try stylize(["--smooth", bad, clip, path("bad.mkv")])
            XCTAssertEqual(result.status, 2, "\(bad): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("--smooth"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad.mkv")))
        XCTAssertEqual(try leftovers(), [])
    }

    /// Six tasks on four keyframes: two ranges are empty (a record, no part); join skips them.
    func testEmptyShardsJoin() throws {
        let whole = path("whole.mkv")
        var result = try stylize(["--video-codec", "ffv1", clip, whole])
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = path("six.mkv")
        for index in 0..<6 {
            result = try stylize(["--video-codec", "ffv1", "--shard", "\(index)/6", clip, out])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stderr.contains("no frames in this range"), [1, 4].contains(index), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("six.part-1-of-6.nut")))
        let records = (0..<6).map { path("six.part-\($0)-of-6.json") }
        let joined = path("joined.mkv")
        result = try TestProcess.gpustyle(["join"] + records + [joined])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try frameHashes(joined), try frameHashes(whole))
    }

    /// `-` is Matroska on standard output; a FIFO named .mp4 is refused (MP4 cannot stream).
    func testStandardOutputAndFIFO() throws {
        var result = try stylize([clip, "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let streamed = path("streamed.mkv")
        try result.stdout.write(to: URL(fileURLWithPath: streamed))
        XCTAssertEqual(try probe(streamed, "packet=pts").split(separator: "\n").count, 24)
        let fifo = path("fifo.mp4")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        result = try stylize([clip, fifo])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("cannot be written to a pipe"), result.stderr)
    }

    /// A variable-rate source: every frame once, a warning saying the output is constant-rate.
    func testVariableFrameRateIsWarnedAbout() throws {
        let vfr = path("vfr.mp4")
        let made = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-i", clip,
                                                                "-vf", "select='not(eq(n\\,5))'", "-fps_mode", "vfr", "-c:a", "copy", vfr])
        XCTAssertEqual(made.status, 0, made.stderr)
        let out = path("vfr-styled.mp4")
        let result = try stylize([vfr, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("variable frame rate"), result.stderr)
        XCTAssertEqual(try probe(out, "packet=pts").split(separator: "\n").count, 23)
    }

    func testCorruptInputIsOneLineAndNoOutput() throws {
        let bad = path("bad.mp4")
        var junk = Data("not a video at all".utf8)
        junk.append(Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        try junk.write(to: URL(fileURLWithPath: bad))
        let out = path("out.mp4")
        let result = try stylize([bad, out])
        XCTAssertEqual(result.status, 2)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(bad), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertEqual(try leftovers(), [])
    }

    /// A task ended by SIGTERM leaves no temporary file and no record; run again it finishes,
    /// and a third run skips the finished part.
    func testKilledTaskRunAgainFinishes() throws {
        let out = path("styled.mkv")
        let task = Process()
        task.executableURL = TestProcess.productsDirectory.appendingPathComponent("gpustyle")
        task.arguments = ["--style", "2", "--device", "cpu", "--video-codec", "ffv1", "--shard", "1/3", clip, out]
        task.standardError = FileHandle.nullDevice
        try task.run()
        // Killed once it is writing its part.
        let deadline = Date().addingTimeInterval(30)
        while task.isRunning, Date() < deadline, try leftovers().isEmpty { usleep(5_000) }
        // SIGKILL: no chance to clean up (a lost node, the OOM killer); SignalCleanupCLITests covers SIGTERM.
        kill(task.processIdentifier, SIGKILL)
        task.waitUntilExit()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("styled.part-1-of-3.json")))
        var result = try stylize(["--video-codec", "ffv1", "--shard", "1/3", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try leftovers(), [], "the killed task's temporary part is removed by the next")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("styled.part-1-of-3.json")))
        result = try stylize(["--video-codec", "ffv1", "--shard", "1/3", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("already done"), result.stderr)
        // Other options are other work: not skipped.
        result = try stylize(["--video-codec", "ffv1", "--strength", "0.5", "--shard", "1/3", clip, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("already done"), result.stderr)
    }
}
