import Foundation
import XCTest
@testable import GPUStyle

/// Shared loading of the warp fixtures (tools/make_warp_fixtures.py) and a plain Double reference.
enum WarpFixtures {
    struct Case {
        let name: String
        let source: Image
        let matrix: Homography
        let width: Int, height: Int, originX: Int, originY: Int
        let bilinear: [Float]
        let bicubic: [Float]
    }

    /// 0.5 + 0.45 sin(0.37 x + 0.23 y + c), as the fixture script defines it.
    static func procedural(width: Int, height: Int) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        for c in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    rgb[(c * height + y) * width + x] = Float(0.5 + 0.45 * sin(0.37 * Double(x) + 0.23 * Double(y) + Double(c)))
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb)
    }

    static func load() throws -> [Case] {
        try Fixtures.names(in: "warp", prefix: "warp_").map { file in
            let t = try Fixtures.tensors(file)
            let size = t["src_size"]!.values.map { Int($0) }
            let source: Image
            if t["procedural"]!.values[0] == 1 {
                source = procedural(width: size[0], height: size[1])
            } else {
                let values = t["source"]!.values, plane = size[0] * size[1]
                let channels = t["source"]!.shape[0]
                source = Image(width: size[0], height: size[1], rgb: Array(values[0..<(3 * plane)]),
                               alpha: channels == 4 ? Array(values[(3 * plane)...]) : nil)
            }
            let out = t["out_size"]!.values.map { Int($0) }, origin = t["origin"]!.values.map { Int($0) }
            return Case(name: file, source: source, matrix: Homography(matrix: HomographyTests.doubles(t, "m")),
                        width: out[0], height: out[1], originX: origin[0], originY: origin[1],
                        bilinear: t["bilinear"]!.values, bicubic: t["bicubic"]!.values)
        }
    }

    static func planes(_ image: Image) -> [Float] { image.rgb + (image.alpha ?? []) }

    /// Straightforward per-pixel Double bilinear warp (clamp to edge), for shapes no fixture covers.
    static func naiveBilinear(_ source: Image, _ h: Homography, width: Int, height: Int, originX: Int = 0, originY: Int = 0) -> [Float] {
        let sw = source.width, sh = source.height
        let src = planes(source), channels = src.count / (sw * sh)
        var out = [Float](repeating: 0, count: channels * width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = h.apply(Point(x: Double(x + originX), y: Double(y + originY)))
                let sx = p.x.isNaN ? 0 : min(max(p.x, 0), Double(sw - 1)), sy = p.y.isNaN ? 0 : min(max(p.y, 0), Double(sh - 1))
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let x1 = min(x0 + 1, sw - 1), y1 = min(y0 + 1, sh - 1)
                let fx = sx - Double(x0), fy = sy - Double(y0)
                for c in 0..<channels {
                    func v(_ xx: Int, _ yy: Int) -> Double { Double(src[(c * sh + yy) * sw + xx]) }
                    let value = v(x0, y0) * (1 - fx) * (1 - fy) + v(x1, y0) * fx * (1 - fy) + v(x0, y1) * (1 - fx) * fy + v(x1, y1) * fx * fy
                    out[(c * height + y) * width + x] = Float(value)
                }
            }
        }
        return out
    }

    static func randomImage(width: Int, height: Int, alpha: Bool = false, seed: UInt64) -> Image {
        var rng = SplitMix(seed: seed)
        let rgb = (0..<(3 * width * height)).map { _ in rng.nextFloat() }
        let a = alpha ? (0..<(width * height)).map { _ in rng.nextFloat() } : nil
        return Image(width: width, height: height, rgb: rgb, alpha: a)
    }
}

/// The tests' random inputs: the library's SplitMix64 (`SeededRandom`), reproducible run to run.
typealias SplitMix = SeededRandom

extension SeededRandom {
    mutating func nextFloat() -> Float { Float(next() >> 40) / Float(1 << 24) }
    mutating func nextDouble(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
    }
}

/// The CPU warp kernel against numpy (bilinear, checked against scipy.ndimage.map_coordinates,
/// and Keys bicubic), and the rectification convention.
final class WarpTests: XCTestCase {
    let warper = CPUPerspectiveWarper()

    func testBilinearMatchesNumpy() throws {
        let cases = try WarpFixtures.load()
        XCTAssertGreaterThanOrEqual(cases.count, 5)
        for c in cases {
            let out = try warper.warp(c.source, outputToSource: c.matrix, width: c.width, height: c.height,
                                      originX: c.originX, originY: c.originY, interpolation: .bilinear)
            assertClose(WarpFixtures.planes(out), c.bilinear, tolerance: 1e-4, "\(c.name) bilinear")
        }
    }

    func testBicubicMatchesNumpy() throws {
        for c in try WarpFixtures.load() {
            let out = try warper.warp(c.source, outputToSource: c.matrix, width: c.width, height: c.height,
                                      originX: c.originX, originY: c.originY, interpolation: .bicubic)
            assertClose(WarpFixtures.planes(out), c.bicubic, tolerance: 1e-4, "\(c.name) bicubic")
        }
    }

    /// Every row length (SIMD tails, segment boundaries) and random perspective mappings.
    func testBilinearMatchesNaiveReferenceAtEveryWidth() throws {
        var rng = SplitMix(seed: 7)
        let source = WarpFixtures.randomImage(width: 53, height: 41, alpha: true, seed: 3)
        for width in 1...70 {
            let height = 1 + width % 5
            let quad = Quad(topLeft: Point(x: rng.nextDouble(-5...20), y: rng.nextDouble(-5...15)),
                            topRight: Point(x: rng.nextDouble(35...60), y: rng.nextDouble(-5...15)),
                            bottomRight: Point(x: rng.nextDouble(35...60), y: rng.nextDouble(25...46)),
                            bottomLeft: Point(x: rng.nextDouble(-5...20), y: rng.nextDouble(25...46)))
            let h = try Homography.rectangle(width: max(width, 2), height: max(height, 2), to: quad)
            let out = try warper.warp(source, outputToSource: h, width: width, height: height, originX: 0, originY: 0,
                                      interpolation: .bilinear)
            XCTAssertNotNil(out.alpha)
            assertClose(WarpFixtures.planes(out), WarpFixtures.naiveBilinear(source, h, width: width, height: height),
                        tolerance: 1e-5, "width \(width)")
        }
    }

    /// Output pixel centres (0,0), (W−1,0), (W−1,H−1), (0,H−1) sample the quad's corners; an
    /// axis-aligned quad with one output pixel per source pixel is an exact crop.
    func testRectifyConvention() throws {
        let source = WarpFixtures.randomImage(width: 40, height: 30, seed: 11)
        let crop = Quad(topLeft: Point(x: 5, y: 7), topRight: Point(x: 24, y: 7), bottomRight: Point(x: 24, y: 21), bottomLeft: Point(x: 5, y: 21))
        XCTAssertEqual(crop.rectifiedSize.width, 19)
        let out = try PerspectiveCorrection.rectify(source, quad: crop, width: 20, height: 15)
        for c in 0..<3 {
            for y in 0..<15 {
                for x in 0..<20 {
                    XCTAssertEqual(out.rgb[(c * 15 + y) * 20 + x], source.rgb[(c * 30 + y + 7) * 40 + x + 5], accuracy: 1e-6)
                }
            }
        }
        // Sub-pixel corners: each output corner equals the source sampled exactly at the quad corner.
        let quad = Quad(topLeft: Point(x: 3.25, y: 2.5), topRight: Point(x: 35.75, y: 4.125),
                        bottomRight: Point(x: 33.5, y: 27.875), bottomLeft: Point(x: 1.5, y: 26.25))
        let (w, h) = (17, 13)
        let rect = try PerspectiveCorrection.rectify(source, quad: quad, width: w, height: h)
        for (corner, (ox, oy)) in zip(quad.corners, [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]) {
            let at = Homography.translation(corner.x, corner.y)
            let expected = WarpFixtures.naiveBilinear(source, at, width: 1, height: 1)
            for c in 0..<3 {
                XCTAssertEqual(rect.rgb[(c * h + oy) * w + ox], expected[c], accuracy: 1e-5, "corner \(corner)")
            }
        }
    }

    func testRectifyRejectsBadSizesAndQuads() throws {
        let source = WarpFixtures.randomImage(width: 20, height: 20, seed: 1)
        let quad = Quad(topLeft: Point(x: 1, y: 1), topRight: Point(x: 18, y: 1), bottomRight: Point(x: 18, y: 18), bottomLeft: Point(x: 1, y: 18))
        XCTAssertThrowsError(try PerspectiveCorrection.rectify(source, quad: quad, width: 1, height: 10))
        XCTAssertThrowsError(try PerspectiveCorrection.rectify(source, quad: quad, width: 10, height: 100_000))
        let bowTie = Quad(topLeft: quad.topLeft, topRight: quad.topRight, bottomRight: quad.bottomLeft, bottomLeft: quad.bottomRight)
        XCTAssertThrowsError(try PerspectiveCorrection.rectify(source, quad: bowTie))
    }
}
