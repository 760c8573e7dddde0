import Foundation
import XCTest
@testable import GPUStyle

/// Style blends that cannot be normalised, and file names that must not put control bytes on
/// the terminal.
final class CLIMessagesTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    var photo: String { Fixtures.root.appendingPathComponent("photos/astronaut.png").path }

    func testNonFiniteBlendWeightsAreRefused() throws {
        for style in ["3:3e38", "3:3e38,4:3e38", "1:inf", "1:nan", "1:-inf", "2:1e7"] {
            let out = scratch.path("o.png")
            let result = try TestProcess.gpustyle(["--style", style, "--device", "cpu", photo, out])
            XCTAssertEqual(result.status, 2, "\(style): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), style)
        }
        XCTAssertEqual(try StyleMix(parsing: "3:1000000,4:1").weights[3], 1_000_000 / 1_000_001, accuracy: 1e-6)
    }

    func testControlBytesInFileNamesAreEscaped() throws {
        let name = scratch.path("red\u{1B}[31m\nsecond line.png")
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: name))
        let result = try TestProcess.gpustyle(["--style", "2", name, scratch.path("o.png")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, result.stderr)
        XCTAssertTrue(result.stderr.contains("red\\x1B[31m\\x0Asecond line.png: not a PNG, JPEG, HEIC, AVIF or WebP"), result.stderr)
    }

    func testEscapingIsIdempotent() {
        let once = PrintableText.escaping("a\u{7}b\u{85}c\u{2028}")
        XCTAssertEqual(once, "a\\x07b\\x85c\\u{2028}")
        XCTAssertEqual(PrintableText.escaping(once), once)
    }
}
