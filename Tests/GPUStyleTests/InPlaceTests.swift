import Foundation
import XCTest
@testable import GPUStyle

/// Altering a picture in place with a given quad (no detector): the mask, the back-warp and the
/// composite.
final class InPlaceTests: XCTestCase {
    static let quad = Quad(topLeft: Point(x: 20.4, y: 15.2), topRight: Point(x: 100.7, y: 26.1),
                           bottomRight: Point(x: 95.3, y: 110.6), bottomLeft: Point(x: 14.8, y: 99.9))

    func photo() throws -> Image { try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/astronaut.png").path) }

    func makeStylizer() throws -> Stylizer {
        let model = try StyleModel.bundled()
        return Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
    }

    func testMaskCoverage() throws {
        let square = Quad(topLeft: Point(x: 10, y: 10), topRight: Point(x: 20, y: 10), bottomRight: Point(x: 20, y: 20), bottomLeft: Point(x: 10, y: 20))
        let aa = try QuadMask(quad: square, feather: 1)
        XCTAssertEqual(aa.coverage(x: 15, y: 15), 1)
        XCTAssertEqual(aa.coverage(x: 10, y: 15), 0.5)      // centre on the edge: half covered
        XCTAssertEqual(aa.coverage(x: 9.75, y: 15), 0.25)
        XCTAssertEqual(aa.coverage(x: 10.5, y: 15), 1)
        XCTAssertEqual(aa.coverage(x: 9.5, y: 15), 0)
        XCTAssertEqual(aa.coverage(x: 20, y: 20), 0.5)      // corner: min of the two edge distances
        XCTAssertEqual(aa.signedDistance(x: 12, y: 15), 2, accuracy: 1e-12)
        let feathered = try QuadMask(quad: square, feather: 1.5)
        XCTAssertEqual(feathered.coverage(x: 10, y: 15), 0.5)
        XCTAssertEqual(feathered.coverage(x: 10.375, y: 15), 0.75)
        XCTAssertEqual(feathered.coverage(x: 10.75, y: 15), 1)
        XCTAssertEqual(feathered.coverage(x: 9.25, y: 15), 0)
        // Orientation does not matter for the mask; a region covers every non-zero pixel.
        let r = feathered.region(width: 100, height: 100)
        XCTAssertLessThanOrEqual(r.x, 9)
        XCTAssertGreaterThanOrEqual(r.x + r.width, 22)
        let clipped = feathered.region(width: 15, height: 12)
        XCTAssertEqual(clipped.x + clipped.width, 15)
        XCTAssertEqual(clipped.y + clipped.height, 12)
        XCTAssertThrowsError(try QuadMask(quad: Quad(topLeft: square.topLeft, topRight: square.topRight,
                                                     bottomRight: square.bottomLeft, bottomLeft: square.bottomRight)))
    }

    /// Outside the quad (by more than half the feather) the photo is untouched; inside, the
    /// stylized rectified picture warped back; on the edge, a blend of the two.
    func testCompositeWithGivenQuad() throws {
        let photo = try photo()
        let stylizer = try makeStylizer()
        let mix = try StyleMix(parsing: "2")
        let inPlace = InPlaceStylizer(stylizer: stylizer)
        let result = try inPlace.stylize(photo, in: Self.quad, mix: mix)
        XCTAssertEqual(result.quad, Self.quad)
        XCTAssertEqual(result.rectifiedWidth, Self.quad.rectifiedSize.width)
        XCTAssertEqual(result.rectifiedHeight, Self.quad.rectifiedSize.height)

        // Independently: rectify, stylize, and sample the stylized picture at H⁻¹(p) in Double.
        let w = result.rectifiedWidth, h = result.rectifiedHeight
        let rectToPhoto = try Homography.rectangle(width: w, height: h, to: Self.quad)
        let rectified = try PerspectiveCorrection.rectify(photo, quad: Self.quad, width: w, height: h)
        let stylized = try stylizer.stylize(rectified, mix: mix)
        let back = WarpFixtures.naiveBilinear(stylized, rectToPhoto.inverse, width: photo.width, height: photo.height)

        let mask = try QuadMask(quad: Self.quad)
        var inside = 0, outside = 0, edge = 0, strictlyBetween = 0
        let n = photo.width * photo.height
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let d = mask.signedDistance(x: Double(x), y: Double(y))
                for c in 0..<3 {
                    let i = c * n + y * photo.width + x
                    let got = result.image.rgb[i], original = photo.rgb[i], styled = back[i]
                    if d <= -0.75 {
                        XCTAssertEqual(got, original, "outside (\(x), \(y)) must be unchanged")
                        outside += 1
                    } else if d >= 0.75 {
                        XCTAssertEqual(got, styled, accuracy: 1e-5, "inside (\(x), \(y))")
                        inside += 1
                    } else {
                        XCTAssertGreaterThanOrEqual(got, min(original, styled) - 1e-5, "edge (\(x), \(y))")
                        XCTAssertLessThanOrEqual(got, max(original, styled) + 1e-5, "edge (\(x), \(y))")
                        let expected = original + mask.coverage(x: Double(x), y: Double(y)) * (styled - original)
                        XCTAssertEqual(got, expected, accuracy: 1e-5, "edge blend (\(x), \(y))")
                        if abs(original - styled) > 0.05 && abs(got - original) > 0.01 && abs(got - styled) > 0.01 { strictlyBetween += 1 }
                        edge += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(inside, 3 * 5000)
        XCTAssertGreaterThan(outside, 3 * 5000)
        XCTAssertGreaterThan(edge, 3 * 200)
        XCTAssertGreaterThan(strictlyBetween, 100, "the edge must be a blend, not a hard cut")
    }

    /// Strength 0: the picture goes through rectify + back-warp only, so it comes back nearly as it was.
    func testStrengthZeroRoundTrip() throws {
        let photo = WarpFixtures.procedural(width: 160, height: 120)
        let quad = Quad(topLeft: Point(x: 30, y: 20), topRight: Point(x: 130, y: 28), bottomRight: Point(x: 125, y: 100), bottomLeft: Point(x: 26, y: 95))
        let result = try InPlaceStylizer(stylizer: try makeStylizer()).stylize(photo, in: quad, mix: try StyleMix(parsing: "5"), strength: 0)
        let mask = try QuadMask(quad: quad)
        var worst: Float = 0
        for y in 0..<120 {
            for x in 0..<160 where mask.signedDistance(x: Double(x), y: Double(y)) > 2 {
                for c in 0..<3 { worst = max(worst, abs(result.image.rgb[(c * 120 + y) * 160 + x] - photo.rgb[(c * 120 + y) * 160 + x])) }
            }
        }
        // Two bilinear resamplings of a signal with ~0.17/px slope and curvature blur it slightly.
        XCTAssertLessThan(worst, 0.06)
    }

    /// A quad smaller than the network's 32x32 minimum is rectified at a larger size.
    func testSmallQuadIsUpscaled() throws {
        let photo = try photo()
        let small = Quad(topLeft: Point(x: 50, y: 50), topRight: Point(x: 70, y: 51), bottomRight: Point(x: 69, y: 62), bottomLeft: Point(x: 50, y: 61))
        XCTAssertLessThan(small.rectifiedSize.height, 32)
        let result = try InPlaceStylizer(stylizer: try makeStylizer()).stylize(photo, in: small, mix: try StyleMix(parsing: "1"))
        XCTAssertGreaterThanOrEqual(result.rectifiedWidth, 32)
        XCTAssertGreaterThanOrEqual(result.rectifiedHeight, 32)
        XCTAssertEqual(Double(result.rectifiedWidth) / Double(result.rectifiedHeight),
                       Double(small.rectifiedSize.width) / Double(small.rectifiedSize.height), accuracy: 0.1)
        XCTAssertEqual(result.image.rgb[0], photo.rgb[0])
        XCTAssertNotEqual(result.image.rgb[60 * 128 + 60], photo.rgb[60 * 128 + 60])
        XCTAssert(InPlaceStylizer.networkSize((200, 40)) == (200, 40))
        XCTAssert(InPlaceStylizer.networkSize((10, 5)) == (64, 32))
    }

    func testRejectsDegenerateQuad() throws {
        let photo = try photo()
        let bad = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 50, y: 50), bottomRight: Point(x: 100, y: 100), bottomLeft: Point(x: 0, y: 100))
        XCTAssertThrowsError(try InPlaceStylizer(stylizer: try makeStylizer()).stylize(photo, in: bad, mix: try StyleMix(parsing: "1"))) {
            XCTAssertEqual(($0 as? HomographyError)?.kind, .collinear)
        }
    }
}
