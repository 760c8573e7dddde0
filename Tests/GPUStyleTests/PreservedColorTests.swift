import XCTest
@testable import GPUStyle

/// `--preserve-color` against PIL doing what the peer does (luma from the stylized picture, Cb
/// and Cr from the photo: tools/make_preserve_color_fixtures.py), and through the stylizer.
final class PreservedColorTests: XCTestCase {
    static let folder = Fixtures.root.appendingPathComponent("preserve_color")

    func read(_ name: String) throws -> Image {
        try ImageIO.read(path: Self.folder.appendingPathComponent("\(name).png").path)
    }

    func testTheLumaOfOneAndTheColoursOfTheOtherAsPILMakesThem() throws {
        let photo = try read("photo"), stylized = try read("stylized"), kept = try read("kept")
        var out = stylized.rgb
        let n = photo.width * photo.height
        out.withUnsafeMutableBufferPointer { o in
            photo.rgb.withUnsafeBufferPointer { p in
                PreservedColor.finish(o.baseAddress!, photo: p.baseAddress!, count: n, stride: n, preserveColor: true, strength: 1)
            }
        }
        // PIL works in 8-bit fixed point (its Y is truncated, 0.44 levels low on average here,
        // and its way back to RGB lands R and B 1.3 levels high on average, numpy measured):
        // our exact float result, rounded, is within 4 levels of the peer's, 1.01 on average
        // over the 36,864 values. Exactness is checked below on Y, Cb and Cr themselves.
        let levels = zip(out, kept.rgb).map { abs(($0 * 255).rounded() - ($1 * 255).rounded()) }
        XCTAssertLessThanOrEqual(levels.max()!, 4)
        XCTAssertLessThan(Double(levels.reduce(0, +)) / Double(levels.count), 1.1)
        // The colours are the photo's: Cb and Cr of the result against the photo's, the luma the stylized one's.
        func ycbcr(_ rgb: [Float], _ i: Int) -> (Float, Float, Float) {
            let r = rgb[i], g = rgb[n + i], b = rgb[2 * n + i]
            return (0.299 * r + 0.587 * g + 0.114 * b, -0.168736 * r - 0.331264 * g + 0.5 * b, 0.5 * r - 0.418688 * g - 0.081312 * b)
        }
        var unclamped = 0
        for i in 0..<n {
            let (y, cb, cr) = ycbcr(out, i), (ys, _, _) = ycbcr(stylized.rgb, i), (_, pcb, pcr) = ycbcr(photo.rgb, i)
            let clamped = [out[i], out[n + i], out[2 * n + i]].contains { $0 == 0 || $0 == 1 }
            if clamped { continue }
            unclamped += 1
            XCTAssertEqual(y, ys, accuracy: 1e-5)
            XCTAssertEqual(cb, pcb, accuracy: 1e-5)
            XCTAssertEqual(cr, pcr, accuracy: 1e-5)
        }
        XCTAssertGreaterThan(unclamped, n / 2)
    }

    func testStrengthMixesAfterKeepingTheColour() throws {
        let photo = try read("photo"), stylized = try read("stylized")
        let n = photo.width * photo.height
        func finish(_ strength: Float) -> [Float] {
            var out = stylized.rgb
            out.withUnsafeMutableBufferPointer { o in
                photo.rgb.withUnsafeBufferPointer { p in
                    PreservedColor.finish(o.baseAddress!, photo: p.baseAddress!, count: n, stride: n, preserveColor: true, strength: strength)
                }
            }
            return out
        }
        let full = finish(1), half = finish(0.5), none = finish(0)
        for i in stride(from: 0, to: 3 * n, by: 97) {
            XCTAssertEqual(half[i], 0.5 * full[i] + 0.5 * photo.rgb[i], accuracy: 1e-6)
            XCTAssertEqual(none[i], photo.rgb[i], accuracy: 1e-6)
        }
    }

    /// Through the stylizer on the CPU path: the result's colours are the photo's where nothing
    /// clamps, and its luma the stylized picture's.
    func testTheStylizerKeepsThePhotosColours() throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let photo = try read("photo"), mix = try StyleMix(style: 7)
        let plain = try stylizer.stylize(photo, mix: mix)
        let kept = try stylizer.stylize(photo, mix: mix, preserveColor: true)
        var expected = plain.rgb
        let n = photo.width * photo.height
        expected.withUnsafeMutableBufferPointer { o in
            photo.rgb.withUnsafeBufferPointer { p in
                PreservedColor.finish(o.baseAddress!, photo: p.baseAddress!, count: n, stride: n, preserveColor: true, strength: 1)
            }
        }
        XCTAssertEqual(zip(kept.rgb, expected).map { abs($0 - $1) }.max()!, 0, accuracy: 1e-6)
        XCTAssertGreaterThan(zip(kept.rgb, plain.rgb).map { abs($0 - $1) }.max()!, 0.1, "the colours changed")
    }
}
