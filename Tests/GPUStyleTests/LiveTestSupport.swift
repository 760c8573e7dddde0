import Foundation
import XCTest
@testable import GPUStyle

/// ffmpeg-made inputs and Y4M outputs for the `gpustyle live` tests.
enum LiveTestSupport {
    static let ffmpeg = "/usr/bin/ffmpeg"

    static func requireFfmpeg() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: ffmpeg), "ffmpeg is not installed (tools/install-deps installs it)")
    }

    /// `frames` frames of ffmpeg's `testsrc` pattern (the camera stand-in) as a Y4M stream.
    static func testsource(width: Int, height: Int, frames: Int, pixelFormat: String = "yuv420p") throws -> Data {
        let result = try TestProcess.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                                  "-i", "testsrc=size=\(width)x\(height):rate=30", "-frames:v", "\(frames)",
                                                  "-pix_fmt", pixelFormat, "-f", "yuv4mpegpipe", "-"])
        guard result.status == 0 else { throw XCTSkip("ffmpeg testsrc failed: \(result.stderr)") }
        return result.stdout
    }

    /// The same pattern written as a video file.
    static func testsourceFile(_ path: String, width: Int, height: Int, frames: Int) throws {
        let result = try TestProcess.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                                                  "-i", "testsrc=size=\(width)x\(height):rate=30", "-frames:v", "\(frames)",
                                                  "-pix_fmt", "yuv420p", path])
        guard result.status == 0 else { throw XCTSkip("ffmpeg could not write \(path): \(result.stderr)") }
    }

    static func parse(_ data: Data) throws -> (Y4MHeader, [YUVFrame]) {
        try Y4MTests.parse(data)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Resident memory of a process in kB (Linux /proc), or nil once it has exited.
    static func residentKilobytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }
}
