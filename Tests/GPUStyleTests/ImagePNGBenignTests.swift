import Foundation
import XCTest
@testable import GPUStyle

/// Benign is not corrupt: problems in a PNG's ancillary chunks leave the pixels intact, so the
/// file decodes (with a warning for --verbose); anything that touches the pixels stays an error.
/// The real case is scikit-image's sample photos, whose iCCP chunk libpng calls a "known
/// incorrect sRGB profile" (every command refused them until this was fixed).
final class ImagePNGBenignTests: XCTestCase {
    static var astronaut: String { Fixtures.root.appendingPathComponent("photos/astronaut_iccp.png").path }

    /// The file with chunk `type` removed.
    static func removing(_ type: String, from png: [UInt8]) throws -> [UInt8] {
        let start = try XCTUnwrap(PNGBytes.offset(of: type, in: png))
        let length = Int(png[start]) << 24 | Int(png[start + 1]) << 16 | Int(png[start + 2]) << 8 | Int(png[start + 3])
        return Array(png[..<start] + png[(start + 12 + length)...])
    }

    /// The file with `chunk` inserted before the first IDAT.
    static func inserting(_ chunk: [UInt8], into png: [UInt8]) throws -> [UInt8] {
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: png))
        return Array(png[..<idat]) + chunk + Array(png[idat...])
    }

    func testSamplePhotoWithKnownIncorrectSRGBProfileDecodesAsItsPixels() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.astronaut)))
        XCTAssertNotNil(PNGBytes.offset(of: "iCCP", in: bytes), "the fixture must keep its profile")
        let image = try ImageIO.read(path: Self.astronaut)
        let report = try XCTUnwrap(image.decodeReport)
        XCTAssertEqual(report.format, "PNG")
        // libpng knows the profile by its checksum (an old HP sRGB profile with broken header
        // fields) and drops it with a warning: the samples are sRGB, so nothing changes.
        XCTAssertEqual(report.colour, .untagged)
        XCTAssertEqual(report.warningCount, 1)
        XCTAssert(report.firstWarning?.contains("known incorrect sRGB profile") == true, report.summary)
        // The same pixels as the file without its profile (an independent path: no iCCP at all).
        let untagged = try ImageIO.decode(Data(Self.removing("iCCP", from: bytes)), name: "untagged")
        XCTAssertEqual(untagged.decodeReport?.colour, .untagged)
        XCTAssertNil(untagged.decodeReport?.firstWarning)
        XCTAssertEqual(image.rgb, untagged.rgb)
    }

    func testBrokenAncillaryChunksAreWarningsNotErrors() throws {
        let plain = try [UInt8](ImageFixtures.data("rgb8.png"))
        let expected = try ImageIO.decode(Data(plain), name: "plain")
        let cases: [(name: String, chunk: [UInt8], warning: String)] = [
            // An sRGB chunk of two bytes (it holds one).
            ("bad sRGB", PNGBytes.chunk("sRGB", [0, 0]), "sRGB"),
            // A tEXt chunk whose CRC does not match (text is skipped unread; its CRC still checked).
            ("bad tEXt CRC", Array(PNGBytes.chunk("tEXt", Array("Comment\u{0}hi".utf8)).dropLast()) + [0], "CRC"),
            // An iCCP whose compressed profile is not a zlib stream.
            ("bad iCCP", PNGBytes.chunk("iCCP", Array("photo".utf8) + [0, 0] + [UInt8](repeating: 7, count: 40)), "iCCP"),
            // A gAMA of zero.
            ("bad gAMA", PNGBytes.chunk("gAMA", [0, 0, 0, 0]), "gAMA"),
        ]
        for item in cases {
            let image = try ImageIO.decode(Data(Self.inserting(item.chunk, into: plain)), name: item.name)
            XCTAssertEqual(image.rgb, expected.rgb, item.name)
            let report = try XCTUnwrap(image.decodeReport, item.name)
            XCTAssertGreaterThanOrEqual(report.warningCount, 1, item.name)
            XCTAssert(report.firstWarning?.contains(item.warning) == true, "\(item.name): \(report.summary)")
        }
    }

    func testProblemsThatTouchThePixelsStayErrors() throws {
        let plain = try [UInt8](ImageFixtures.data("rgb8.png"))
        let idat = try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: plain))
        var badCRC = plain
        badCRC[idat + 9] ^= 0x40  // inside the IDAT data: its CRC no longer matches
        let truncated = Array(plain.prefix(idat + 12))
        let noIDAT = try Self.removing("IDAT", from: plain)
        for (name, bytes) in [("idat-crc", badCRC), ("truncated", truncated), ("no-idat", noIDAT)] {
            XCTAssertThrowsError(try ImageIO.decode(Data(bytes), name: name), name) { error in
                XCTAssert("\(error)".hasPrefix("\(name): "), "\(error)")
            }
        }
    }

    func testOutputPNGsSaySRGB() throws {
        let image = Image(width: 2, height: 1, rgb: [0, 1, 0.5, 0.5, 1, 0])
        let bytes = try [UInt8](ImageIO.encodePNG(image))
        let chunk = try XCTUnwrap(PNGBytes.offset(of: "sRGB", in: bytes))
        XCTAssertEqual(bytes[chunk + 8], 0, "rendering intent: perceptual")
        XCTAssertLessThan(chunk, try XCTUnwrap(PNGBytes.offset(of: "IDAT", in: bytes)))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("streamed.png")
        try ImageIO.writePNG(image, to: path)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), bytes, "streamed and in-memory PNGs alike")
    }

    /// Through the binary, as the user ran it: stylize, classify and detect take the
    /// photo; `--verbose` names the profile and the warning once.
    func testCommandsTakeTheSamplePhoto() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let out = scratch.path("out.png")
        let stylize = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", "-v", Self.astronaut, out])
        XCTAssertEqual(stylize.status, 0, stylize.stderr)
        XCTAssertEqual(try ImageIO.read(path: out).width, 128)
        let mentions = stylize.stderr.split(separator: "\n").filter { $0.contains("known incorrect sRGB profile") }
        XCTAssertEqual(mentions.count, 1, stylize.stderr)
        XCTAssert(mentions.first?.hasPrefix(Self.astronaut + ": PNG 128x128") == true, stylize.stderr)

        let quiet = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", Self.astronaut, scratch.path("quiet.png")])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "no warning without --verbose")

        let classify = try TestProcess.gpustyle(["classify", "--device", "cpu", Self.astronaut])
        XCTAssertEqual(classify.status, 0, classify.stderr)
        XCTAssertFalse(classify.stdout.isEmpty)
        let detect = try TestProcess.gpustyle(["detect", "--device", "cpu", Self.astronaut])
        XCTAssert([0, 1].contains(detect.status), "detect: found or not found, never refused: \(detect.stderr)")
        XCTAssertFalse(detect.stderr.contains("corrupt"), detect.stderr)
    }
}
