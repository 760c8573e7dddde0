import Foundation
import XCTest
@testable import GPUStyle

/// Every kind of output path, through the real binary: a link's target is updated and the link
/// kept, FIFOs and devices are written in place (never replaced), permissions survive an
/// overwrite, and a write that fails is exit status 1 with one line and no leftovers.
final class OutputPathCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    var photo: String { Fixtures.root.appendingPathComponent("photos/astronaut.png").path }

    func stylize(to output: String) throws -> ProcessResult {
        try TestProcess.gpustyle(["--style", "2", "--device", "cpu", photo, output])
    }

    func fileType(_ path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat(path, &status), 0, path)
        return status.st_mode & S_IFMT
    }

    func assertNoTemporaryFiles(file: StaticString = #filePath, line: UInt = #line) {
        let hidden = scratch.contents().filter { $0.hasPrefix(".") }
        XCTAssertEqual(hidden, [], "temporary files left behind", file: file, line: line)
    }

    func testSymbolicLinkUpdatesItsTargetAndStays() throws {
        let target = try scratch.write(Data("old".utf8), "real.png")
        let link = scratch.path("link.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.png")
        let result = try stylize(to: link)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fileType(link), S_IFLNK, "the link itself must not be replaced")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real.png")
        XCTAssertEqual(try ImageIO.read(path: target).width, 128, "the target holds the new image")
        assertNoTemporaryFiles()
    }

    func testLinkChainToAFileInAnotherFolder() throws {
        try FileManager.default.createDirectory(atPath: scratch.path("sub"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("sub/second"), withDestinationPath: "../final.png")
        try FileManager.default.createSymbolicLink(atPath: scratch.path("first.png"), withDestinationPath: "sub/second")
        let result = try stylize(to: scratch.path("first.png"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fileType(scratch.path("first.png")), S_IFLNK)
        XCTAssertEqual(fileType(scratch.path("sub/second")), S_IFLNK)
        XCTAssertEqual(try ImageIO.read(path: scratch.path("final.png")).height, 128, "a dangling chain creates its final target")
    }

    func testFIFOIsWrittenInPlace() throws {
        let fifo = scratch.path("pipe.png")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let received = DataBox()
        let reader = Thread {
            // Opening blocks until gpustyle opens the other end.
            if let handle = FileHandle(forReadingAtPath: fifo) { received.data = handle.readDataToEndOfFile() }
        }
        reader.start()
        let result = try stylize(to: fifo)
        XCTAssertEqual(result.status, 0, result.stderr)
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO must stay a FIFO")
        XCTAssertEqual(try ImageIO.decode(received.data, name: "fifo").width, 128)
        assertNoTemporaryFiles()
    }

    /// /dev/null is safe to write and must stay a character device (as root, a rename would
    /// have replaced it with a regular file).
    func testDevNullStaysADevice() throws {
        let result = try stylize(to: "/dev/null")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fileType("/dev/null"), S_IFCHR)
    }

    func testDevStdoutIsStandardOutput() throws {
        let result = try stylize(to: "/dev/stdout")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try ImageIO.decode(result.stdout, name: "stdout").width, 128)
    }

    func testDevFullIsAWriteError() throws {
        let result = try stylize(to: "/dev/full")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr, "gpustyle: /dev/full: cannot write: No space left on device\n")
        XCTAssertEqual(fileType("/dev/full"), S_IFCHR)
    }

    /// Printed results to a full stdout: an error, not a silent exit 0.
    func testFullStandardOutputIsAnError() throws {
        for arguments in [["detect", photo], ["styles"], ["--style", "2", "--device", "cpu", photo, "-"]] {
            let command = ([TestProcess.productsDirectory.appendingPathComponent("gpustyle").path] + arguments)
                .map { "'\($0)'" }.joined(separator: " ")
            let result = try TestProcess.run("/bin/bash", ["-c", "\(command) > /dev/full"])
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "gpustyle: stdout: cannot write: No space left on device\n", "\(arguments)")
        }
    }

    func testOverwriteKeepsPermissions() throws {
        let out = try scratch.write(Data("old".utf8), "private.png")
        XCTAssertEqual(chmod(out, 0o640), 0)
        let result = try stylize(to: out)
        XCTAssertEqual(result.status, 0, result.stderr)
        var status = stat()
        XCTAssertEqual(stat(out, &status), 0)
        XCTAssertEqual(status.st_mode & 0o7777, 0o640)
        XCTAssertEqual(try ImageIO.read(path: out).width, 128)
    }

    func testFolderAsOutputIsAUserError() throws {
        let result = try stylize(to: scratch.url.path)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("is a folder"), result.stderr)
    }

    /// A file-size limit (ulimit -f, SIGXFSZ ignored) makes write(2) fail with EFBIG partway:
    /// status 1, one line naming the file, the old file intact and no temporary file left.
    func testFailedWriteKeepsTheOldFile() throws {
        let out = try scratch.write(Data("old contents".utf8), "o.png")
        let binary = TestProcess.productsDirectory.appendingPathComponent("gpustyle").path
        let script = "trap '' XFSZ; ulimit -f 8; exec '\(binary)' --style 2 --device cpu '\(Self.bigPhoto(in: scratch))' '\(out)'"
        let result = try TestProcess.run("/bin/bash", ["-c", script])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr, "gpustyle: \(out): cannot write: File too large\n")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "old contents")
        assertNoTemporaryFiles()
    }

    /// A 512 x 384 photo of noise (its PNG is about 600 KB: well past a small size limit).
    static func bigPhoto(in scratch: ScratchDirectory, width: Int = 512, height: Int = 384) -> String {
        var random = SeededRandom(seed: 7)
        let rgb = (0..<(3 * width * height)).map { _ in Float(random.next() % 256) / 255 }
        let path = scratch.path("noise-\(width)x\(height).png")
        try! ImageIO.writePNG(Image(width: width, height: height, rgb: rgb, alpha: nil), to: path)
        return path
    }
}
