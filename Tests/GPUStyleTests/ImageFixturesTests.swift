import Foundation
import XCTest
@testable import GPUStyle

/// Shared helpers for the image I/O tests: fixture lookup, expected tensors
/// (written by tools/make_image_fixtures.py) and scratch directories.
enum ImageFixtures {
    static let directory: URL = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
        .appendingPathComponent("images")

    static func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    static func data(_ file: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(file)) }

    /// Expected [C, H, W] tensors keyed "png/<name>" and "jpeg/<name>".
    static let expected: [String: NamedTensor] = {
        let url = directory.appendingPathComponent("expected.gpsw")
        return try! TensorFile.parse(Data(contentsOf: url))
    }()

    static func names(_ prefix: String) -> [String] {
        expected.keys.filter { $0.hasPrefix(prefix + "/") }.map { String($0.dropFirst(prefix.count + 1)) }.sorted()
    }

    /// Largest absolute difference between `image` and a [C, H, W] tensor
    /// (C = 4 means RGB + alpha); fails the test on any shape mismatch.
    static func maxDifference(_ image: Image, _ tensor: NamedTensor, _ name: String,
                              file: StaticString = #filePath, line: UInt = #line) -> Float {
        let channels = tensor.shape[0], height = tensor.shape[1], width = tensor.shape[2]
        XCTAssertEqual(image.width, width, "\(name) width", file: file, line: line)
        XCTAssertEqual(image.height, height, "\(name) height", file: file, line: line)
        XCTAssertEqual(image.alpha != nil, channels == 4, "\(name) alpha presence", file: file, line: line)
        guard image.width == width, image.height == height else { return .infinity }
        var worst: Float = 0
        let plane = width * height
        for i in 0..<3 * plane { worst = max(worst, abs(image.rgb[i] - tensor.values[i])) }
        if channels == 4, let alpha = image.alpha {
            for i in 0..<plane { worst = max(worst, abs(alpha[i] - tensor.values[3 * plane + i])) }
        }
        return worst
    }
}

/// A fresh directory under the system temp dir, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-image-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ data: Data, _ name: String) throws -> String {
        try data.write(to: url.appendingPathComponent(name))
        return path(name)
    }

    func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// PNG chunk surgery for the bad-input tests.
enum PNGBytes {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    /// A syntactically valid PNG header (signature + IHDR, 8-bit RGB) with any size.
    static func header(width: UInt32, height: UInt32) -> [UInt8] {
        ImageFormat.pngSignature + chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
    }

    /// Offset of the first chunk of `type` (its length field).
    static func offset(of type: String, in png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if png[(offset + 4)..<(offset + 8)].elementsEqual(type.utf8) { return offset }
            offset += 12 + length
        }
        return nil
    }
}

final class ImageFixturesTests: XCTestCase {
    func testFixturesArePresent() throws {
        XCTAssertGreaterThanOrEqual(ImageFixtures.names("png").count, 20)
        XCTAssertGreaterThanOrEqual(ImageFixtures.names("jpeg").count, 10)
        for name in ImageFixtures.names("png") {
            XCTAssertTrue(FileManager.default.fileExists(atPath: ImageFixtures.path(name + ".png")), name)
        }
    }

    func testCRCHelperMatchesKnownValue() {
        // CRC-32 of "IEND" is the constant every PNG ends with.
        XCTAssertEqual(PNGBytes.crc32(Array("IEND".utf8)), 0xAE42_6082)
    }
}
