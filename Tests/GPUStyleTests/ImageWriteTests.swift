#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import GPUStyle

/// PNG output: quantization, round trips, and atomic writes that leave
/// nothing behind on failure.
final class ImageWriteTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    func randomImage(width: Int, height: Int, alpha: Bool) -> Image {
        var generator = SystemRandomNumberGenerator()
        let plane = width * height
        let rgb = (0..<3 * plane).map { _ in Float.random(in: 0...1, using: &generator) }
        let a = alpha ? (0..<plane).map { _ in Float.random(in: 0...1, using: &generator) } : nil
        return Image(width: width, height: height, rgb: rgb, alpha: a)
    }

    func quantized(_ values: [Float]) -> [Float] {
        values.map { (min(max($0 * 255, 0), 255)).rounded() / 255 }
    }

    func testRoundTripEqualsEightBitQuantizedInput() throws {
        for alpha in [false, true] {
            let original = randomImage(width: 13, height: 11, alpha: alpha)
            let decoded = try ImageIO.decode(ImageIO.encodePNG(original), name: "round trip")
            XCTAssertEqual(decoded.width, 13)
            XCTAssertEqual(decoded.height, 11)
            XCTAssertEqual(decoded.rgb, quantized(original.rgb))
            XCTAssertEqual(decoded.alpha, original.alpha.map(quantized), "alpha \(alpha)")
        }
    }

    func testQuantizationRoundsAndClamps() throws {
        let values: [Float] = [-1, 0, 0.49 / 255, 0.51 / 255, 127.5 / 255, 0.999, 1, 7, .nan, .infinity, -.infinity, 0.5]
        let image = Image(width: values.count, height: 1, rgb: values + values + values)
        let decoded = try ImageIO.decode(ImageIO.encodePNG(image), name: "quantize")
        let bytes = decoded.rgb[0..<values.count].map { Int(($0 * 255).rounded()) }
        XCTAssertEqual(bytes, [0, 0, 0, 1, 128, 255, 255, 255, 0, 255, 0, 128])
    }

    func testOutputIsEightBitRGBOrRGBA() throws {
        let rgb = [UInt8](try ImageIO.encodePNG(randomImage(width: 2, height: 2, alpha: false)))
        let rgba = [UInt8](try ImageIO.encodePNG(randomImage(width: 2, height: 2, alpha: true)))
        // IHDR bit depth and colour type live at bytes 24 and 25.
        XCTAssertEqual(Array(rgb[24...25]), [8, 2])
        XCTAssertEqual(Array(rgba[24...25]), [8, 6])
    }

    func testWriteThenReadLeavesOnlyTheOutputFile() throws {
        let image = randomImage(width: 7, height: 5, alpha: true)
        let path = scratch.path("out.png")
        try ImageIO.writePNG(image, to: path)
        XCTAssertEqual(scratch.contents(), ["out.png"])
        let back = try ImageIO.read(path: path)
        XCTAssertEqual(back.rgb, quantized(image.rgb))
        XCTAssertEqual(back.alpha, image.alpha.map(quantized))
        // Overwriting replaces the file, still without leftovers.
        try ImageIO.writePNG(randomImage(width: 3, height: 2, alpha: false), to: path)
        XCTAssertEqual(scratch.contents(), ["out.png"])
        XCTAssertEqual(try ImageIO.read(path: path).width, 3)
    }

    /// Asserts writing fails with a one-line message naming `path` and that
    /// the scratch directory is unchanged afterwards (no output, no temp file).
    func assertWriteFails(to path: String, contains reason: String, file: StaticString = #filePath, line: UInt = #line) {
        let before = scratch.contents()
        XCTAssertThrowsError(try ImageIO.writePNG(randomImage(width: 4, height: 4, alpha: false), to: path),
                             file: file, line: line) { error in
            let text = String(describing: error)
            XCTAssertTrue(text.hasPrefix(path + ": "), text, file: file, line: line)
            XCTAssertTrue(text.contains(reason), text, file: file, line: line)
            XCTAssertFalse(text.contains("\n"), file: file, line: line)
        }
        XCTAssertEqual(scratch.contents(), before, "leftover files", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path) && !before.contains((path as NSString).lastPathComponent),
                       file: file, line: line)
    }

    func testMissingDirectory() {
        assertWriteFails(to: scratch.path("no/such/dir/out.png"), contains: "does not exist")
    }

    func testParentIsAFile() throws {
        _ = try scratch.write(Data("x".utf8), "plain-file")
        assertWriteFails(to: scratch.path("plain-file/out.png"), contains: "Not a directory")
    }

    func testOutputPathIsADirectoryIsRefused() throws {
        try FileManager.default.createDirectory(atPath: scratch.path("taken.png"), withIntermediateDirectories: false)
        assertWriteFails(to: scratch.path("taken.png"), contains: "is a folder")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path("taken.png")), [])
    }

    func testReadOnlyDirectory() throws {
        try XCTSkipIf(geteuid() == 0, "root ignores directory permissions")
        let locked = scratch.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        assertWriteFails(to: locked + "/out.png", contains: "Permission denied")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked), [])
    }

    func testInconsistentImageIsRejectedBeforeTouchingDisk() {
        var image = randomImage(width: 4, height: 4, alpha: false)
        image.rgb.removeLast()
        let path = scratch.path("bad.png")
        XCTAssertThrowsError(try ImageIO.writePNG(image, to: path))
        XCTAssertEqual(scratch.contents(), [])
        var empty = Image(width: 0, height: 0, rgb: [])
        XCTAssertThrowsError(try ImageIO.encodePNG(empty))
        empty.alpha = []
        XCTAssertThrowsError(try ImageIO.writePNG(empty, to: path))
        XCTAssertEqual(scratch.contents(), [])
    }

    /// The streamed writer (a row at a time into the file) gives the same bytes as the
    /// in-memory encoder, across many 64 KB buffer flushes.
    func testStreamedPNGEqualsEncodedBytes() throws {
        for alpha in [false, true] {
            let image = randomImage(width: 301, height: 257, alpha: alpha)
            let path = scratch.path("streamed-\(alpha).png")
            try ImageIO.writePNG(image, to: path)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), try ImageIO.encodePNG(image))
        }
    }

    /// A write error mid-stream (/dev/full) is an OutputError naming the file, not a user error.
    func testWriteErrorIsReported() throws {
        let full = try SafeDevice.path(.full, in: scratch)
        XCTAssertThrowsError(try ImageIO.writePNG(randomImage(width: 300, height: 300, alpha: false), to: full)) { error in
            XCTAssertEqual("\(error)", "\(full): cannot write: No space left on device")
            XCTAssertEqual((error as? OutputError)?.isUserError, false)
        }
    }

    func testDestinations() throws {
        XCTAssertEqual(try OutputPath("-").resolve(), .descriptor(1))
        XCTAssertEqual(try OutputPath("/dev/stdout").resolve(), .descriptor(1))
        XCTAssertEqual(try OutputPath("/dev/null").resolve(), .direct("/dev/null"))
        XCTAssertEqual(try OutputPath(scratch.path("new.png")).resolve(), .replace(scratch.path("new.png")))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("loop"), withDestinationPath: "loop")
        XCTAssertThrowsError(try OutputPath(scratch.path("loop")).resolve()) { error in
            XCTAssertTrue("\(error)".contains("Too many levels of symbolic links"), "\(error)")
        }
    }
}
