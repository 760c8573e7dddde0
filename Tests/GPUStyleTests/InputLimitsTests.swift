import Foundation
import XCTest
@testable import GPUStyle

/// Bounded, strict input through the real binary: damaged files, absurd headers, --max-pixels,
/// endless input and allocation failure each end in one line on stderr naming the file, with
/// status 2 (the input's fault) or 1 (out of memory), and no output file.
final class InputLimitsTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    var photo: String { Fixtures.root.appendingPathComponent("photos/astronaut.png").path }
    var jpeg: [UInt8] { get throws { [UInt8](try Data(contentsOf: Fixtures.root.appendingPathComponent("rectangles/003.jpg"))) } }

    /// Runs gpustyle and checks: `status`, one stderr line containing every needle, no output.
    @discardableResult
    func expectFailure(_ arguments: [String], status: Int32 = 2, mentions needles: [String],
                       file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let output = scratch.path("out.png")
        let result = try TestProcess.gpustyle(arguments.map { $0 == "OUT" ? output : $0 })
        XCTAssertEqual(result.status, status, "status for \(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(result.stderr)", file: file, line: line)
        for needle in needles {
            XCTAssert(result.stderr.contains(needle), "'\(result.stderr)' should mention '\(needle)'", file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output file", file: file, line: line)
        return result
    }

    func testJPEGCutInHalfWithEndMarkerIsAnError() throws {
        let whole = try jpeg
        let cut = try scratch.write(Data(whole.prefix(whole.count / 2) + [0xFF, 0xD9]), "cut.jpg")
        // libjpeg only warns here and fills the rest with grey; the decode used to succeed.
        try expectFailure(["--style", "2", "--device", "cpu", cut, "OUT"],
                          mentions: ["cut.jpg: corrupt JPEG: Corrupt JPEG data: premature end of data segment"])
    }

    func testJPEGCutWithoutEndMarkerIsAnError() throws {
        let whole = try jpeg
        let cut = try scratch.write(Data(whole.prefix(whole.count / 2)), "short.jpg")
        try expectFailure(["detect", cut], mentions: ["short.jpg: corrupt JPEG: Premature end of JPEG file"])
    }

    func testCorruptJPEGDataWarningsAreErrors() throws {
        let whole = try jpeg
        var marker = whole
        marker.replaceSubrange((whole.count / 2)..<(whole.count / 2 + 2), with: [0xFF, 0xD3])  // a stray RST3 in the scan
        let stray = try scratch.write(Data(marker), "stray.jpg")
        try expectFailure(["detect", stray], mentions: ["stray.jpg: corrupt JPEG: Corrupt JPEG data"])
        let extra = try scratch.write(Data(whole.dropLast(2) + [UInt8](repeating: 0, count: 10) + [0xFF, 0xD9]), "extra.jpg")
        try expectFailure(["detect", extra], mentions: ["extra.jpg: corrupt JPEG: Corrupt JPEG data:", "extraneous bytes"])
    }

    func testPNGWithTruncatedImageDataIsAnError() throws {
        // Chunks intact (valid CRCs), but the IDAT holds only the first half of the zlib stream.
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: png))
        let length = Int(png[idat]) << 24 | Int(png[idat + 1]) << 16 | Int(png[idat + 2]) << 8 | Int(png[idat + 3])
        let half = Array(png[(idat + 8)..<(idat + 8 + length / 2)])
        let cut = try scratch.write(Data(png.prefix(idat) + PNGBytes.chunk("IDAT", half) + PNGBytes.chunk("IEND", [])), "cut.png")
        try expectFailure(["--style", "2", "--device", "cpu", cut, "OUT"], mentions: ["cut.png: corrupt PNG:"])
        // And the file simply cut short.
        let short = try scratch.write(Data(png.prefix(png.count * 2 / 3)), "short.png")
        try expectFailure(["detect", short], mentions: ["short.png: corrupt PNG: file is truncated"])
    }

    func testAbsurdJPEGHeaderIsRefusedAtOnce() throws {
        var bytes = try jpeg
        let sof = try XCTUnwrap((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])  // height, width 60000
        let huge = try scratch.write(Data(bytes), "huge.jpg")
        let start = Date()
        try expectFailure(["--style", "2", "--device", "cpu", huge, "OUT"],
                          mentions: ["huge.jpg: image is 60000x60000 (3600 MP), above the 100 MP limit (--max-pixels)"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "refused from the header, nothing decoded")
    }

    func testAbsurdPNGHeaderIsRefusedAtOnce() throws {
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        // Width and height in the IHDR, then its CRC over type and data recomputed.
        png.replaceSubrange(16..<24, with: PNGBytes.bigEndian(60000) + PNGBytes.bigEndian(60000))
        png.replaceSubrange(29..<33, with: PNGBytes.bigEndian(PNGBytes.crc32(Array(png[12..<29]))))
        let huge = try scratch.write(Data(png), "huge.png")
        try expectFailure(["detect", huge], mentions: ["huge.png: image is 60000x60000 (3600 MP), above the 100 MP limit (--max-pixels)"])
    }

    func testMaxPixelsOnEveryCommandThatReadsAPhoto() throws {
        let message = "astronaut.png: image is 128x128 (16384 pixels), above the 1000-pixel limit (--max-pixels)"
        try expectFailure(["--style", "2", "--max-pixels", "1000", photo, "OUT"], mentions: [message])
        try expectFailure(["detect", "--max-pixels", "1000", photo], mentions: [message])
        try expectFailure(["rectify", "--max-pixels", "1000", "--quad", "0,0,100,0,100,100,0,100", photo, "OUT"], mentions: [message])
        try expectFailure(["--style", "2", "--in-place-rectangle", "--max-pixels", "1k", photo, "OUT"], mentions: [message])
        // At the limit is fine; suffixes are accepted.
        let out = scratch.path("rectified.png")
        let fits = try TestProcess.gpustyle(["rectify", "--max-pixels", "16384", "--quad", "0,0,100,0,100,100,0,100", photo, out])
        XCTAssertEqual(fits.status, 0, fits.stderr)
        XCTAssertEqual(try TestProcess.gpustyle(["rectify", "--max-pixels", "0.02M", "--quad", "0,0,100,0,100,100,0,100", photo, out]).status, 0)
        try expectFailure(["detect", "--max-pixels", "lots", photo], mentions: ["--max-pixels", "positive pixel count"])
    }

    func testDevZeroIsRefusedFromItsFirstBytes() throws {
        let start = Date()
        try expectFailure(["--style", "2", "/dev/zero", "OUT"], mentions: ["/dev/zero: not a PNG, JPEG, HEIC, AVIF or WebP image"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "must not read /dev/zero to the end")
    }

    /// A valid 10000x10000 PNG (a few hundred KB) whose float planes need 1.2 GB, decoded under
    /// a 600 MB address-space limit: the allocation fails, and that is one line and status 1,
    /// not a trap (status 134 with a backtrace).
    func testAllocationFailureIsAnErrorNotATrap() throws {
        let big = try scratch.write(Data(SolidPNG.make(width: 10_000, height: 10_000)), "big.png")
        let output = scratch.path("out.png")
        let binary = TestProcess.productsDirectory.appendingPathComponent("gpustyle").path
        let result = try TestProcess.run("/bin/bash", ["-c", "ulimit -v 600000; exec \"$0\" \"$@\"",
                                                       binary, "--style", "2", "--device", "cpu", big, output])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr, "gpustyle: \(big): not enough memory to decode 10000x10000 (1.2 GB)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testTheLargeTestPNGIsValid() throws {
        // The out-of-memory test means nothing if its image is broken: a smaller one decodes.
        let image = try ImageIO.decode(Data(SolidPNG.make(width: 700, height: 300)), name: "solid")
        XCTAssertEqual(image.width, 700)
        XCTAssertEqual(image.height, 300)
        XCTAssertEqual(image.rgb.max(), 0)
    }
}
