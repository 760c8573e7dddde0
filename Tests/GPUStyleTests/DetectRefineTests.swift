import XCTest
@testable import GPUStyle

/// Sub-pixel sides (`DetectRefine`).
final class DetectRefineTests: XCTestCase {
    /// A picture smeared sideways by 14 px of camera motion (a box blur, as a shutter open while
    /// the camera moves): across its left and right sides the gradient is a plateau as wide as
    /// the motion, whose peak is anywhere on it. The sides come out in the plateau's middle,
    /// where they were at mid-exposure, from a coarse quad 2 px off.
    func testAMotionBlurredSideIsPlacedInTheMiddleOfItsSmear() {
        let truth = Quad(topLeft: Point(x: 180.3, y: 120.6), topRight: Point(x: 451.8, y: 131.2),
                         bottomRight: Point(x: 440.4, y: 352.7), bottomLeft: Point(x: 168.9, y: 341.5))
        let sharp = SyntheticScene.render(width: 640, height: 480, quad: truth)
        var image = sharp
        let motion = 14, plane = image.width * image.height
        for c in 0..<3 {
            for y in 0..<image.height {
                for x in 0..<image.width {
                    var sum: Float = 0
                    for k in 0..<motion { sum += sharp.rgb[c * plane + y * image.width + min(image.width - 1, max(0, x + k - motion / 2))] }
                    image.rgb[c * plane + y * image.width + x] = sum / Float(motion)
                }
            }
        }
        // Pixel x averages x - 7 ... x + 6: the smeared edge's middle is half a pixel right of
        // the sharp one.
        let shifted = truth.corners.map { Point(x: $0.x + 0.5, y: $0.y) }
        let coarse = Quad(corners: shifted.map { Point(x: $0.x + 2, y: $0.y + 1) })
        let refined = DetectRefine.run(coarse, image: image, searchRadius: 3)
        for (found, expected) in zip(refined.corners, shifted) {
            XCTAssertLessThan(found.distance(to: expected), 0.25, "\(refined.corners) vs \(shifted)")
        }
    }
}
