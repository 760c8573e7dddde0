import Foundation
import XCTest
@testable import GPUStyle

/// The homography solver against an independent numpy DLT/SVD reference
/// (tools/make_warp_fixtures.py), and its rejection of degenerate quads.
final class HomographyTests: XCTestCase {
    /// Doubles stored as float32 hi + lo pairs.
    static func doubles(_ t: [String: NamedTensor], _ name: String) -> [Double] {
        zip(t[name + "_hi"]!.values, t[name + "_lo"]!.values).map { Double($0) + Double($1) }
    }

    static func points(_ values: [Double], _ offset: Int, _ count: Int) -> [Point] {
        (0..<count).map { Point(x: values[offset + 2 * $0], y: values[offset + 2 * $0 + 1]) }
    }

    static let kinds: [Int: HomographyError.Kind] = [1: .nonFinite, 2: .collinear, 3: .selfIntersecting, 4: .nonConvex, 5: .tooSmall]

    func testMatchesSVDReference() throws {
        let t = try Fixtures.tensors("warp/homography.gpsw")
        let src = Self.doubles(t, "src"), dst = Self.doubles(t, "dst"), h = Self.doubles(t, "h")
        let probes = Self.doubles(t, "probe"), mapped = Self.doubles(t, "mapped")
        let valid = t["valid"]!.values, kind = t["kind"]!.values
        var accepted = 0, rejected = 0
        for i in 0..<valid.count {
            let s = Self.points(src, 8 * i, 4), d = Self.points(dst, 8 * i, 4)
            if valid[i] == 1 {
                let solved = try Homography(from: s, to: d)
                let reference = Array(h[(9 * i)..<(9 * i + 9)])
                let norm = reference.map { $0 * $0 }.reduce(0, +).squareRoot()
                let worst = zip(solved.matrix, reference).map { abs($0 - $1) }.max()!
                XCTAssertLessThan(worst / norm, 1e-9, "case \(i): \(solved) vs \(reference)")
                let scale = d.map { max(abs($0.x), abs($0.y)) }.max()! + 1
                for (p, q) in zip(Self.points(probes, 32 * i, 16), Self.points(mapped, 32 * i, 16)) {
                    XCTAssertLessThan(solved.apply(p).distance(to: q), 1e-8 * scale, "case \(i): probe \(p)")
                    XCTAssertLessThan(solved.inverse.apply(q).distance(to: p), 1e-7 * scale, "case \(i): inverse at \(q)")
                }
                for (p, q) in zip(s, d) { XCTAssertLessThan(solved.apply(p).distance(to: q), 1e-8 * scale, "case \(i): corner") }
                accepted += 1
            } else {
                let expected = Self.kinds[Int(kind[i])]!
                XCTAssertThrowsError(try Homography(from: s, to: d), "case \(i) must be rejected as \(expected)") { error in
                    XCTAssertEqual((error as? HomographyError)?.kind, expected, "case \(i): \(error)")
                }
                rejected += 1
            }
        }
        XCTAssertGreaterThan(accepted, 20)
        XCTAssertGreaterThan(rejected, 5)
    }

    func testRectangleConvention() throws {
        let quad = Quad(topLeft: Point(x: 10.25, y: 20.5), topRight: Point(x: 90, y: 25),
                        bottomRight: Point(x: 85.5, y: 70), bottomLeft: Point(x: 12, y: 66.75))
        let h = try Homography.rectangle(width: 64, height: 48, to: quad)
        let outputCorners = [Point(x: 0, y: 0), Point(x: 63, y: 0), Point(x: 63, y: 47), Point(x: 0, y: 47)]
        for (o, c) in zip(outputCorners, quad.corners) { XCTAssertLessThan(h.apply(o).distance(to: c), 1e-10) }
    }

    func testAffineCasesAreExact() throws {
        // A translation and scale: the solver must return an affine matrix.
        let s = [Point(x: 0, y: 0), Point(x: 9, y: 0), Point(x: 9, y: 4), Point(x: 0, y: 4)]
        let d = s.map { Point(x: 2 * $0.x + 5, y: 3 * $0.y - 1) }
        let h = try Homography(from: s, to: d)
        let expected: [Double] = [2, 0, 5, 0, 3, -1, 0, 0, 1]
        for (a, b) in zip(h.matrix, expected) { XCTAssertEqual(a, b, accuracy: 1e-12) }
        XCTAssertEqual(h.composed(after: h.inverse).matrix.enumerated().map { abs($1 - [1.0, 0, 0, 0, 1, 0, 0, 0, 1][$0]) }.max()!,
                       0, accuracy: 1e-12)
    }

    func testQuadChecksForRectification() throws {
        let good = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 10, y: 0), bottomRight: Point(x: 10, y: 8), bottomLeft: Point(x: 0, y: 8))
        XCTAssertNoThrow(try good.validateForWarp())
        let mirrored = Quad(topLeft: good.topLeft, topRight: good.bottomLeft, bottomRight: good.bottomRight, bottomLeft: good.topRight)
        XCTAssertThrowsError(try mirrored.validateForWarp()) { error in
            XCTAssertEqual((error as? HomographyError)?.kind, .wrongOrientation)
            XCTAssert("\(error)".contains("counter-clockwise"), "\(error)")
        }
        let bowTie = Quad(topLeft: good.topLeft, topRight: good.topRight, bottomRight: good.bottomLeft, bottomLeft: good.bottomRight)
        XCTAssertThrowsError(try bowTie.validateForWarp()) { XCTAssertEqual(($0 as? HomographyError)?.kind, .selfIntersecting) }
        let collinear = Quad(topLeft: good.topLeft, topRight: Point(x: 5, y: 4), bottomRight: good.bottomRight, bottomLeft: good.bottomLeft)
        XCTAssertThrowsError(try collinear.validateForWarp()) { error in
            XCTAssertEqual((error as? HomographyError)?.kind, .collinear)
            XCTAssert("\(error)".contains("top-left, top-right, bottom-right"), "\(error)")
        }
        let infinite = Quad(topLeft: good.topLeft, topRight: Point(x: .infinity, y: 0), bottomRight: good.bottomRight, bottomLeft: good.bottomLeft)
        XCTAssertThrowsError(try infinite.validateForWarp()) { XCTAssertEqual(($0 as? HomographyError)?.kind, .nonFinite) }
        XCTAssertEqual(Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 100, y: 10), bottomRight: Point(x: 90, y: 60),
                            bottomLeft: Point(x: 5, y: 50)).rectifiedSize.width, 100)
    }

    func testRectifiedSizeFormula() {
        let q = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 30, y: 40), bottomRight: Point(x: 30, y: 100), bottomLeft: Point(x: 0, y: 80.4))
        // max(|br−bl| = 36.06, |tr−tl| = 50) × max(|tr−br| = 60, |tl−bl| = 80.4)
        XCTAssertEqual(q.rectifiedSize.width, 50)
        XCTAssertEqual(q.rectifiedSize.height, 80)
    }
}
