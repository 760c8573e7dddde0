#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import GPUStyle

/// Bad inputs: each must throw one clear line naming the file, without
/// crashing and without libpng/libjpeg writing to stderr.
final class ImageErrorTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    /// Reads `bytes` from a file called `name` and returns the error text.
    func failure(_ bytes: [UInt8], named name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = try scratch.write(Data(bytes), name)
        return failure(path: path, file: file, line: line)
    }

    func failure(path: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try ImageIO.read(path: path)
            XCTFail("\(path) decoded", file: file, line: line)
            return ""
        } catch let error as ImageError {
            XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description, file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), error.description, file: file, line: line)
            return error.description
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return ""
        }
    }

    func fixture(_ name: String) throws -> [UInt8] { [UInt8](try ImageFixtures.data(name)) }

    func testMissingFile() {
        XCTAssertTrue(failure(path: scratch.path("nope.png")).contains("No such file or directory"))
    }

    func testDirectoryIsNotAnImage() throws {
        XCTAssertTrue(failure(path: scratch.url.path).contains("cannot read"))
    }

    func testEmptyFile() throws {
        XCTAssertTrue(try failure([], named: "empty.png").contains("file is empty"))
    }

    func testTextFileNamedPNG() throws {
        let message = try failure(Array("just some notes\n".utf8), named: "notes.png")
        XCTAssertTrue(message.contains("not a PNG or JPEG"), message)
    }

    func testTruncatedPNG() throws {
        let png = try fixture("rgb8_adam7.png")
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: png))
        for cut in [idat + 4, idat + 8 + 10, png.count - 12] {  // inside IDAT header, inside data, before IEND
            let message = try failure(Array(png.prefix(cut)), named: "cut\(cut).png")
            XCTAssertTrue(message.contains("corrupt PNG"), message)
        }
    }

    func testCorruptCRC() throws {
        var png = try fixture("rgb8.png")
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: png))
        let length = Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        png[idat + 8 + length] ^= 0x55  // first byte of the stored CRC
        let message = try failure(png, named: "crc.png")
        XCTAssertTrue(message.contains("CRC"), message)
    }

    func testCorruptCompressedDataWithValidCRC() throws {
        var png = try fixture("rgb8.png")
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: png))
        let length = Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        var body = Array(png[(idat + 8)..<(idat + 8 + length)])
        body[0] = 0xFF  // an impossible zlib header
        body[1] = 0xFF
        png.replaceSubrange(idat..<(idat + 12 + length), with: PNGBytes.chunk("IDAT", body))
        XCTAssertTrue(try failure(png, named: "zlib.png").contains("corrupt PNG"))
    }

    func testHugeHeaderFailsFastWithoutDecoding() throws {
        let png = PNGBytes.header(width: 100_000, height: 100_000) + PNGBytes.chunk("IDAT", [0x78, 0x9C]) + PNGBytes.chunk("IEND", [])
        let start = Date()
        let message = try failure(png, named: "huge.png")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5, "must not allocate 10^10 pixels")
        XCTAssertTrue(message.contains("too large"), message)
        XCTAssertTrue(message.contains("100000x100000"), message)
    }

    func testLibpngPathAlsoRefusesHugeHeaders() throws {
        let png = PNGBytes.header(width: 100_000, height: 100_000) + PNGBytes.chunk("IDAT", [0x78, 0x9C]) + PNGBytes.chunk("IEND", [])
        XCTAssertThrowsError(try PNGCodec.decodeWithLibpng(Data(png), name: "huge.png")) { error in
            XCTAssertEqual(String(describing: error),
                           "huge.png: image is too large (100000x100000 pixels, limit is \(ImageIO.maximumPixels))")
        }
    }

    func testZeroSizedPNG() throws {
        let png = PNGBytes.header(width: 0, height: 0) + PNGBytes.chunk("IEND", [])
        XCTAssertTrue(try failure(png, named: "zero.png").contains("no pixels"))
    }

    func testTruncatedJPEG() throws {
        let jpeg = try fixture("plain.jpg")
        let message = try failure(Array(jpeg.prefix(jpeg.count / 2)), named: "cut.jpg")
        XCTAssertTrue(message.contains("corrupt JPEG"), message)
        let headerOnly = try failure(Array(jpeg.prefix(40)), named: "header.jpg")
        XCTAssertTrue(headerOnly.contains("corrupt JPEG"), headerOnly)
    }

    /// Offset of the baseline SOF0 segment's height field.
    func sofSizeOffset(_ jpeg: [UInt8]) throws -> Int {
        let sof = try XCTUnwrap((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        return sof + 5  // marker (2), length (2), precision (1)
    }

    func testHugeJPEGHeaderIsRefusedBeforeDecoding() throws {
        var jpeg = try fixture("gray.jpg")
        let size = try sofSizeOffset(jpeg)
        jpeg.replaceSubrange(size..<(size + 4), with: [0xEA, 0x60, 0xEA, 0x60])  // 60000 x 60000
        let start = Date()
        let message = try failure(jpeg, named: "huge.jpg")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        XCTAssertTrue(message.contains("too large"), message)
    }

    func testZeroSizedJPEG() throws {
        var jpeg = try fixture("gray.jpg")
        let size = try sofSizeOffset(jpeg)
        jpeg.replaceSubrange(size..<(size + 4), with: [0, 0, 0, 0])
        XCTAssertTrue(try failure(jpeg, named: "zero.jpg").contains("no pixels"))
    }

    func testDecodersNeverWriteToStderr() throws {
        let png = try fixture("rgb8.png"), jpeg = try fixture("plain.jpg")
        var badCRC = png
        badCRC[40] ^= 0xFF
        let inputs: [[UInt8]] = [Array(png.prefix(60)), badCRC, Array(jpeg.prefix(300)), Array(jpeg.prefix(30))]
        // Point fd 2 at a file while decoding, then check the file stayed empty.
        let capture = scratch.path("stderr.txt")
        let captureFD = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let savedStderr = dup(STDERR_FILENO)
        dup2(captureFD, STDERR_FILENO)
        var failures = 0
        for (index, bytes) in inputs.enumerated() {
            if (try? ImageIO.decode(Data(bytes), name: "input\(index)")) == nil { failures += 1 }
        }
        dup2(savedStderr, STDERR_FILENO)
        close(savedStderr)
        close(captureFD)
        XCTAssertEqual(failures, inputs.count)
        XCTAssertEqual(try String(contentsOfFile: capture, encoding: .utf8), "")
    }
}
