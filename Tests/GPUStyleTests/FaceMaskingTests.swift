import Foundation
import XCTest
@testable import GPUStyle

/// Masks over face regions: placed, turned, stretched and composited with their alpha.
final class FaceMaskingTests: XCTestCase {
    private func grey(_ width: Int, _ height: Int) -> Image {
        Image(width: width, height: height, rgb: [Float](repeating: 0.5, count: 3 * width * height))
    }

    private func pixel(_ image: Image, _ x: Int, _ y: Int) -> [Float] {
        (0..<3).map { image.rgb[$0 * image.pixelCount + y * image.width + x] }
    }

    /// A 4x2 mask: red, its right half opaque, its left half transparent.
    private var halfRed: Image {
        Image(width: 4, height: 2, rgb: [Float](repeating: 1, count: 8) + [Float](repeating: 0, count: 16),
              alpha: [0, 0, 1, 1, 0, 0, 1, 1])
    }

    func testMaskCoversItsTurnedRectangleAndRespectsAlpha() {
        var image = grey(100, 100)
        // 40 wide along x, 20 high, centred at (50, 50), not turned.
        FaceMasking.draw(halfRed, at: .init(centre: Point(x: 50, y: 50), width: 40, height: 20, rotation: 0), on: &image)
        XCTAssertEqual(pixel(image, 60, 50), [1, 0, 0], "the opaque half")
        XCTAssertEqual(pixel(image, 35, 50), [0.5, 0.5, 0.5], "the transparent half leaves the photo")
        XCTAssertEqual(pixel(image, 65, 65), [0.5, 0.5, 0.5], "outside the rectangle")
        // Turned a quarter turn: the mask's width now runs down the image (its right half below).
        var turned = grey(100, 100)
        FaceMasking.draw(halfRed, at: .init(centre: Point(x: 50, y: 50), width: 40, height: 20, rotation: .pi / 2), on: &turned)
        XCTAssertEqual(pixel(turned, 50, 60), [1, 0, 0])
        XCTAssertEqual(pixel(turned, 50, 35), [0.5, 0.5, 0.5])
        XCTAssertEqual(pixel(turned, 65, 50), [0.5, 0.5, 0.5])
    }

    /// A mask wholly off the photo (a region of a face at its edge) draws nothing and does not trap.
    func testMaskOffThePhotoDrawsNothing() {
        let photo = grey(50, 40)
        for centre in [Point(x: -100, y: 20), Point(x: 200, y: 20), Point(x: 25, y: -100), Point(x: 25, y: 300)] {
            var image = photo
            FaceMasking.draw(halfRed, at: .init(centre: centre, width: 40, height: 20, rotation: 0.3), on: &image)
            XCTAssertEqual(image.rgb, photo.rgb, "\(centre)")
        }
    }

    /// On the astronaut: an eye mask lands on her left eye (the pupil's black under the
    /// detector's eye point), and the photo away from the face is untouched.
    func testEyeMaskLandsOnTheEye() throws {
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let backend = CPUBackend(weights: [])
        let face = try XCTUnwrap(try FaceDetector(backend: backend).detect(photo).first)
        let mesh = try FaceLandmarker(backend: backend).mesh(of: face, in: photo)
        let eye = try ImageIO.read(path: FacesCLITests.masks.appendingPathComponent("eye.png").path)
        XCTAssertNotNil(eye.alpha)
        let masked = FaceMasking.apply([.leftEye: eye], meshes: [mesh], on: photo)
        let placement = try XCTUnwrap(FaceMasking.placement(of: .leftEye, in: mesh))
        let centre = pixel(masked, Int(placement.centre.x), Int(placement.centre.y))
        XCTAssertLessThan(centre.max()!, 0.2, "the pupil's black at the eye's centre: \(centre)")
        XCTAssertLessThan(placement.centre.distance(to: face[.leftEye]), 0.1 * face.width)
        XCTAssertEqual(placement.width / placement.height, 4, accuracy: 2, "an eye's lids: three to four times wider than high")
        var changed = 0
        for i in 0..<photo.rgb.count where photo.rgb[i] != masked.rgb[i] {
            changed += 1
            let p = i % photo.pixelCount
            let point = Point(x: Double(p % photo.width) + 0.5, y: Double(p / photo.width) + 0.5)
            XCTAssertLessThan(point.distance(to: placement.centre), placement.width, "changed far from the eye")
        }
        XCTAssertGreaterThan(changed, 100)
    }
}
