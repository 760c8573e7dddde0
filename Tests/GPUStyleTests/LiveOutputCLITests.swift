import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle live`'s files when writing fails or a signal ends it: one line, exit status 1
/// (143 for SIGTERM), no partial output, no ffmpeg left running, no ffmpeg log left behind.
final class LiveOutputCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
        // gpustyle stops reading its stdin when a write fails: feeding it the rest must be an
        // EPIPE error here, not a SIGPIPE that ends the test process.
        signal(SIGPIPE, SIG_IGN)
        folder = try LiveTestSupport.temporaryDirectory()
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    var binary: String { TestProcess.productsDirectory.appendingPathComponent("gpustyle").path }

    /// Runs `gpustyle arguments` under a 1 KB file-size limit (SIGXFSZ ignored, so writes past
    /// it fail with EFBIG, as on a full disk), for it and its ffmpeg children.
    func runLimited(_ arguments: [String], stdin: Data? = nil) throws -> ProcessResult {
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try TestProcess.run("/bin/bash", ["-c", "trap '' XFSZ; ulimit -f 1; exec \(command)"], stdin: stdin)
    }

    func errorLines(_ result: ProcessResult) -> [Substring] {
        result.stderr.split(separator: "\n").filter { !$0.hasPrefix("summary:") }
    }

    func testQuadLogWriteErrorRemovesTheLog() throws {
        let input = try LiveTestSupport.testsource(width: 64, height: 48, frames: 60)
        let log = folder.appendingPathComponent("q.jsonl").path
        let result = try runLimited(["live", "--pace", "lockstep", "--device", "cpu", "--quad-log", log], stdin: input)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(errorLines(result), ["gpustyle: \(log): cannot write: File too large"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "the partial log must be removed")
    }

    func testY4MWriteErrorRemovesTheOutput() throws {
        let input = try LiveTestSupport.testsource(width: 64, height: 48, frames: 10)
        let out = folder.appendingPathComponent("out.y4m").path
        let result = try runLimited(["live", "--pace", "lockstep", "--device", "cpu", "-o", out], stdin: input)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(errorLines(result), ["gpustyle: \(out): cannot write the output: File too large"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testQuadLogToAFIFOIsWrittenInPlace() throws {
        let input = try LiveTestSupport.testsource(width: 64, height: 48, frames: 5)
        let fifo = folder.appendingPathComponent("q.jsonl").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let reader = FIFOReader(fifo)
        let result = try TestProcess.gpustyle(["live", "--pace", "lockstep", "--device", "cpu", "--quad-log", fifo], stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        let received = try XCTUnwrap(reader.finish(), "nothing was written to the FIFO")
        XCTAssertEqual(String(decoding: received, as: UTF8.self).split(separator: "\n").count, 5)
        var status = stat()
        XCTAssertEqual(lstat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO)
    }

    func testFfmpegWriteFailureLeavesNoVideo() throws {
        let clip = folder.appendingPathComponent("clip.mp4").path
        try LiveTestSupport.testsourceFile(clip, width: 96, height: 72, frames: 30)
        let video = folder.appendingPathComponent("out.mp4").path
        let result = try runLimited(["live", "--input", clip, "--pace", "all", "--device", "cpu", "-o", video])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(errorLines(result).count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("ffmpeg could not write \(video)"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["clip.mp4"])
    }

    /// SIGTERM while ffmpeg reads the clip and writes the video: both ffmpeg processes end, the
    /// partial video and ffmpeg's logs are removed, exit status 143.
    func testTerminateEndsFfmpegAndRemovesPartialFiles() throws {
        let clip = folder.appendingPathComponent("clip.mp4").path
        try LiveTestSupport.testsourceFile(clip, width: 96, height: 72, frames: 300)
        let video = folder.appendingPathComponent("out.mp4").path
        let live = Process()
        live.executableURL = URL(fileURLWithPath: binary)
        live.arguments = ["live", "--input", clip, "--device", "cpu", "-o", video]
        live.standardError = FileHandle.nullDevice
        try live.run()
        let pid = live.processIdentifier
        let logs = { (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()))?
            .filter { $0.hasPrefix("gpustyle-ffmpeg-\(pid)-") } ?? [] }
        var children: [Int32] = []
        for _ in 0..<200 where children.count < 2 || logs().count < 2 {
            Thread.sleep(forTimeInterval: 0.05)
            children = Self.children(of: pid)
        }
        XCTAssertEqual(children.count, 2, "two ffmpeg children (reader and writer)")
        XCTAssertEqual(logs().count, 2, "their logs")
        Thread.sleep(forTimeInterval: 0.5)
        kill(pid, SIGTERM)
        live.waitUntilExit()
        XCTAssertEqual(live.terminationStatus, 143)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["clip.mp4"])
        XCTAssertEqual(logs(), [])
        Thread.sleep(forTimeInterval: 0.2)
        for child in children { XCTAssertFalse(Self.isAlive(child), "ffmpeg \(child) still running") }
    }

    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Running (a zombie, exited but not yet reaped by init, counts as ended).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
    }
}
