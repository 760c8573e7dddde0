import Foundation
import XCTest
@testable import GPUStyle

/// JPEG decoding: values against Pillow with a tolerance (IDCTs differ), and
/// EXIF orientation against the known quadrant layout of the display picture.
final class ImageJPEGDecodeTests: XCTestCase {
    /// Display-space quadrant colours the fixture script draws (24 x 16 picture).
    static let quadrants: [(name: String, x: Int, y: Int, rgb: [Float])] = [
        ("top-left", 5, 3, [220, 30, 30]), ("top-right", 18, 3, [30, 190, 60]),
        ("bottom-left", 5, 12, [40, 50, 220]), ("bottom-right", 18, 12, [235, 235, 235]),
    ]

    func testDecodedValuesMatchPillowWithinThreeLevels() throws {
        let names = ImageFixtures.names("jpeg")
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let image = try ImageIO.read(path: ImageFixtures.path(name + ".jpg"))
            let tensor = try XCTUnwrap(ImageFixtures.expected["jpeg/" + name])
            XCTAssertLessThanOrEqual(ImageFixtures.maxDifference(image, tensor, name), 3 / 255 + 1e-6, name)
        }
    }

    func testEveryOrientationShowsTheQuadrantsUpright() throws {
        let files = (1...8).map { "exif\($0)" } + ["exif3_mm", "exif6_mm", "progressive_exif8", "plain", "cmyk"]
        for file in files {
            let image = try ImageIO.read(path: ImageFixtures.path(file + ".jpg"))
            XCTAssertEqual(image.width, 24, file)
            XCTAssertEqual(image.height, 16, file)
            guard image.width == 24, image.height == 16 else { continue }
            let plane = image.width * image.height
            for quadrant in Self.quadrants {
                let i = quadrant.y * image.width + quadrant.x
                let seen = (0..<3).map { image.rgb[$0 * plane + i] * 255 }
                for c in 0..<3 {
                    // Generous: JPEG blurs colour, but a wrong quadrant is off by >100.
                    XCTAssertEqual(seen[c], quadrant.rgb[c], accuracy: 24, "\(file) \(quadrant.name) channel \(c)")
                }
            }
        }
    }

    func testGrayscaleJPEGFillsAllThreePlanesEqually() throws {
        let image = try ImageIO.read(path: ImageFixtures.path("gray.jpg"))
        let plane = image.width * image.height
        XCTAssertNil(image.alpha)
        for i in 0..<plane {
            XCTAssertEqual(image.rgb[i], image.rgb[plane + i])
            XCTAssertEqual(image.rgb[i], image.rgb[2 * plane + i])
        }
    }
}
