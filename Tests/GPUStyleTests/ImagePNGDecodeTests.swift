import Foundation
import XCTest
@testable import GPUStyle

/// PNG decoding against values that tools/make_image_fixtures.py encoded
/// (independent of libpng; the script cross-checks them with Pillow).
final class ImagePNGDecodeTests: XCTestCase {
    func testEveryColourTypeAndBitDepthMatchesTheEncodedValues() throws {
        let names = ImageFixtures.names("png")
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let image = try ImageIO.read(path: ImageFixtures.path(name + ".png"))
            let tensor = try XCTUnwrap(ImageFixtures.expected["png/" + name])
            // Exact up to float rounding: lossless format, same scaling (v / (2^bits - 1)).
            XCTAssertLessThanOrEqual(ImageFixtures.maxDifference(image, tensor, name), 1e-6, name)
        }
    }

    func testSixteenBitSamplesKeepTheirPrecision() throws {
        for name in ["gray16", "rgb16", "rgba16_adam7"] {
            let image = try ImageIO.read(path: ImageFixtures.path(name + ".png"))
            // Any 8-bit path would put every value on a multiple of 1/255.
            let offGrid = image.rgb.filter { abs($0 * 255 - ($0 * 255).rounded()) > 0.01 }
            XCTAssertGreaterThan(offGrid.count, image.rgb.count / 2, name)
        }
    }

    func testPaletteTransparencyBecomesAlpha() throws {
        let image = try ImageIO.read(path: ImageFixtures.path("palette8_trns.png"))
        let alpha = try XCTUnwrap(image.alpha)
        // The script puts palette entries 0, 1, 2 in the first row; their tRNS values are 0, 128, 255.
        XCTAssertEqual(alpha[0], 0)
        XCTAssertEqual(alpha[1], 128 / 255, accuracy: 1e-6)
        XCTAssertEqual(alpha[2], 1)
        XCTAssertNil(try ImageIO.read(path: ImageFixtures.path("palette8.png")).alpha)
    }

    func testTinyInterlacedImageWithEmptyPasses() throws {
        // 3 x 2 leaves several Adam7 passes empty; values are covered above.
        let image = try ImageIO.read(path: ImageFixtures.path("rgb8_adam7_tiny.png"))
        XCTAssertEqual(image.width, 3)
        XCTAssertEqual(image.height, 2)
    }

    func testFormatIsChosenBySignatureNotExtension() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let misnamed = try scratch.write(ImageFixtures.data("rgb8.png"), "actually-a-png.jpg")
        let image = try ImageIO.read(path: misnamed)
        XCTAssertEqual(image.width, 7)
        let jpegNamedPNG = try scratch.write(ImageFixtures.data("plain.jpg"), "actually-a-jpeg.png")
        XCTAssertEqual(try ImageIO.read(path: jpegNamedPNG).width, 24)
    }

    func testDecodeFromMemory() throws {
        let image = try ImageIO.decode(ImageFixtures.data("graya8.png"), name: "memory")
        XCTAssertEqual(image.rgb.count, 3 * 7 * 5)
        XCTAssertEqual(image.alpha?.count, 7 * 5)
    }
}
