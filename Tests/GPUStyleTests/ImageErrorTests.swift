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
        XCTAssertTrue(message.contains("not a PNG, JPEG, HEIC, AVIF or WebP"), message)
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
        XCTAssertTrue(message.hasSuffix("huge.png: image is 100000x100000 (10000 MP), above the 100 MP limit (DecodeLimits.maxPixels)"), message)
    }

    func testPixelLimitIsTheCallers() throws {
        let png = try ImageFixtures.data("rgb8.png")  // 7 x 5
        let tight = DecodeLimits(maxPixels: 34, maxPixelsName: "--max-pixels")
        XCTAssertThrowsError(try ImageIO.decode(png, name: "rgb8.png", limits: tight)) { error in
            XCTAssertEqual(String(describing: error), "rgb8.png: image is 7x5 (35 pixels), above the 34-pixel limit (--max-pixels)")
        }
        XCTAssertEqual(try ImageIO.decode(png, name: "rgb8.png", limits: DecodeLimits(maxPixels: 35)).pixelCount, 35)
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
        // Cut, then given its end marker back: libjpeg only warns, which must still fail.
        let patched = try failure(Array(jpeg.prefix(jpeg.count / 2)) + [0xFF, 0xD9], named: "patched.jpg")
        XCTAssertTrue(patched.contains("corrupt JPEG: Premature end of JPEG file"), patched)
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
        XCTAssertTrue(message.contains("60000x60000 (3600 MP), above the 100 MP limit"), message)
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

    /// Runs `body` with standard input reading `bytes` from a pipe, written by another thread
    /// (so inputs larger than the pipe buffer work). Returns what `body` returned or threw, and
    /// how many bytes went into the pipe before the reader was done.
    func withStandardInput<T>(_ bytes: [UInt8], _ body: () throws -> T) throws -> (result: Result<T, Error>, written: Int) {
        signal(SIGPIPE, SIG_IGN)  // a reader that stops early makes write fail with EPIPE
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let written = WrittenCount()
        let writer = Thread { [writeEnd = ends[1]] in
            bytes.withUnsafeBytes { buffer in
                while written.bytes < buffer.count {
                    let n = write(writeEnd, buffer.baseAddress! + written.bytes, buffer.count - written.bytes)
                    if n <= 0 { break }
                    written.bytes += n
                }
            }
            close(writeEnd)
            written.done.signal()
        }
        let saved = dup(STDIN_FILENO)
        dup2(ends[0], STDIN_FILENO)
        close(ends[0])
        writer.start()
        let result = Result { try body() }
        dup2(saved, STDIN_FILENO)  // closes the pipe's last read end, so the writer stops
        close(saved)
        written.done.wait()
        return (result, written.bytes)
    }

    final class WrittenCount: @unchecked Sendable {
        var bytes = 0
        let done = DispatchSemaphore(value: 0)
    }

    func testStandardInputIsCapped() throws {
        let png = try fixture("rgb8_adam7.png")
        let capped = DecodeLimits(maxStandardInputBytes: png.count - 1)
        XCTAssertThrowsError(try withStandardInput(png) { try ImageIO.read(path: "-", limits: capped) }.result.get()) { error in
            XCTAssertEqual(String(describing: error), "stdin: more than \(png.count - 1) bytes of input")
        }
        let exact = DecodeLimits(maxStandardInputBytes: png.count)
        XCTAssertEqual(try withStandardInput(png) { try ImageIO.read(path: "-", limits: exact) }.result.get().width, 13)
        XCTAssertEqual(ByteCount.binary(DecodeLimits.defaultMaxStandardInputBytes), "1 GiB")
    }

    func testEndlessStandardInputThatIsNotAnImageFailsAtOnce() throws {
        // 8 MiB of zeros under the default 1 GiB cap: refused from its first bytes, not read to the end.
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let run = try withStandardInput(zeros) { try ImageIO.read(path: "-") }
        XCTAssertThrowsError(try run.result.get()) { error in
            XCTAssertEqual(String(describing: error), "stdin: not a PNG, JPEG, HEIC, AVIF or WebP image")
        }
        // The pipe holds 64 KiB and the reader takes 64 KiB at a time: far less than 8 MiB.
        XCTAssertLessThan(run.written, 1 << 20)
    }
}
