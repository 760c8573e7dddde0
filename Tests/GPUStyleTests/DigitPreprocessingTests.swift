import Foundation
import XCTest
@testable import GPUStyle

/// DigitPreprocessing against tools/make_digit_preprocess_fixtures.py, an independent numpy/scipy
/// implementation of the same documented steps, on straightened notes drawn with MNIST ink (blue
/// paper darker than mid-grey, a shading ramp, a speck, a shadowed edge, a small and a tall note)
/// and on blank notes (one with a dark strip along an edge, which is not ink).
final class DigitPreprocessingTests: XCTestCase {
    static let tolerance: Float = 1e-4

    struct Case {
        let name: String
        let png: String
        let blank: Bool
        let inkFraction: Double
        let glyph: [Float]?
    }

    static func cases() throws -> [Case] {
        let root = Fixtures.root.appendingPathComponent("digit-preprocess")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("cases.json"))) as! [String: Any]
        return (json["cases"] as! [[String: Any]]).map { c in
            Case(name: c["name"] as! String, png: root.appendingPathComponent(c["png"] as! String).path,
                 blank: c["blank"] as! Bool, inkFraction: c["ink_fraction"] as! Double,
                 glyph: (c["glyph"] as? [Double])?.map { Float($0) })
        }
    }

    func testMatchesTheNumpyReference() throws {
        let cases = try Self.cases()
        XCTAssertEqual(cases.filter(\.blank).count, 3)
        XCTAssertEqual(cases.filter { !$0.blank }.count, 6)
        for c in cases {
            let result = DigitPreprocessing().prepare(try ImageIO.read(path: c.png))
            XCTAssertEqual(result.inkFraction, c.inkFraction, accuracy: 1e-9, c.name)
            switch (result.content, c.glyph) {
            case (.blank, nil): break
            case (.glyph(let glyph), let expected?):
                XCTAssertEqual(glyph.count, 784, c.name)
                let worst = zip(glyph, expected).map { abs($0 - $1) }.max()!
                XCTAssertLessThanOrEqual(worst, Self.tolerance, "\(c.name): glyph differs by \(worst)")
                // MNIST's layout: the ink inside 20x20, its centre of mass within a pixel of (14, 14).
                var mass: Float = 0, mx: Float = 0, my: Float = 0, rows = Set<Int>(), columns = Set<Int>()
                for (i, v) in glyph.enumerated() where v > 0 {
                    mass += v; mx += v * Float(i % 28); my += v * Float(i / 28)
                    rows.insert(i / 28); columns.insert(i % 28)
                }
                XCTAssertLessThanOrEqual(max(rows.count, columns.count), 20, c.name)
                XCTAssertEqual(mx / mass, 14, accuracy: 0.5, c.name)
                XCTAssertEqual(my / mass, 14, accuracy: 0.5, c.name)
            default:
                XCTFail("\(c.name): \(result.content == .blank ? "blank" : "a glyph"), expected \(c.blank ? "blank" : "a glyph")")
            }
        }
    }

    /// Apple's recipe (the sample's contrast 32 about mid-grey) on paper darker than mid-grey
    /// (a blue note in the shade: grey 0.42) turns the whole note into "ink"; the paper-relative
    /// recipe keeps only the stroke.
    func testAppleRecipeFloodsDarkPaper() throws {
        let side = 60, n = side * side
        var rgb = [Float](repeating: 0.42, count: 3 * n)
        for y in 15..<45 { for x in 27..<33 { for c in 0..<3 { rgb[c * n + y * side + x] = 0.05 } } }  // a "1"
        let image = Image(width: side, height: side, rgb: rgb)
        guard case .glyph(let apple) = DigitPreprocessing(recipe: .apple).prepare(image).content,
              case .glyph(let mnist) = DigitPreprocessing().prepare(image).content else {
            return XCTFail("both recipes should find ink")
        }
        XCTAssertGreaterThan(apple.reduce(0, +) / 784, 0.99)
        XCTAssertLessThan(mnist.reduce(0, +) / 784, 0.2)
    }

    func testAreaResizeKeepsTheMean() {
        let source = (0..<(23 * 17)).map { Float(($0 * 37) % 101) / 100 }
        let small = DigitPreprocessing.areaResize(source, width: 23, height: 17, toWidth: 9, toHeight: 20)
        XCTAssertEqual(small.reduce(0, +) / Float(small.count), source.reduce(0, +) / Float(source.count), accuracy: 1e-5)
    }
}
