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
        let reader = FIFOReader(fifo)
        let result = try stylize(to: fifo)
        XCTAssertEqual(result.status, 0, result.stderr)
        let received = try XCTUnwrap(reader.finish(), "nothing was written to the FIFO")
        XCTAssertEqual(fileType(fifo), S_IFIFO, "the FIFO must stay a FIFO")
        XCTAssertEqual(try ImageIO.decode(received, name: "fifo").width, 128)
        assertNoTemporaryFiles()
    }

    /// A null device must stay a character device (a rename would replace it with a regular
    /// file). As root the test writes to its own node, so that a broken build cannot replace
    /// the system's /dev/null.
    func testNullDeviceStaysADevice() throws {
        let null = try SafeDevice.path(.null, in: scratch)
        let result = try stylize(to: null)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(fileType(null), S_IFCHR)
    }

    /// A link to /proc/self/fd/1, as /dev/stdout is (in the scratch folder, for the same
    /// reason).
    func testStdoutLinkIsStandardOutput() throws {
        let link = scratch.path("stdout")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        let result = try stylize(to: link)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try ImageIO.decode(result.stdout, name: "stdout").width, 128)
        XCTAssertEqual(fileType(link), S_IFLNK)
    }

    func testFullDeviceIsAWriteError() throws {
        let full = try SafeDevice.path(.full, in: scratch)
        let result = try stylize(to: full)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr, "gpustyle: \(full): cannot write: No space left on device\n")
        XCTAssertEqual(fileType(full), S_IFCHR)
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

/// Reads a FIFO to its end on a thread (opening it blocks until a writer opens the other end).
final class FIFOReader: @unchecked Sendable {
    private let path: String
    private let received = DataBox()
    private let thread: Thread

    init(_ path: String) {
        self.path = path
        let received = received
        thread = Thread {
            if let handle = FileHandle(forReadingAtPath: path) { received.data = handle.readDataToEndOfFile() }
        }
        thread.start()
    }

    /// What was read, or nil when no writer came within `timeout` seconds (the reader is then
    /// released by opening and closing the write end, so that the test cannot hang).
    func finish(timeout: Double = 20) -> Data? {
        let deadline = Date().addingTimeInterval(timeout)
        while !thread.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard !thread.isFinished else { return received.data }
        let fd = open(path, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
        while !thread.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        return nil
    }
}

/// /dev/null and /dev/full for tests that write to them. As root, a private node with the same
/// device numbers in the scratch folder: root may replace anything in /dev, and a broken
/// output rule would then replace the system's device with a regular file. Other users cannot
/// write to /dev, so the real device is safe for them.
enum SafeDevice {
    case null, full

    static func path(_ device: SafeDevice, in scratch: ScratchDirectory) throws -> String {
        let (name, minor): (String, UInt32) = device == .null ? ("null", 3) : ("full", 7)
        guard geteuid() == 0 else { return "/dev/\(name)" }
        let path = scratch.path(name)
        // Linux dev_t for major 1 (memory devices): major << 8 | minor (both below 256).
        guard mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | minor)) == 0 else {
            throw XCTSkip("cannot make a device node in \(scratch.url.path): \(String(cString: strerror(errno)))")
        }
        return path
    }
}
