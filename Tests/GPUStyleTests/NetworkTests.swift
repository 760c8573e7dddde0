import XCTest
@testable import GPUStyle

/// The whole network against onnxruntime on the original ONNX file
/// (tools/make_network_fixtures.py: three real photos, three styles, one blend).
final class NetworkTests: XCTestCase {
    static let tolerance: Float = 2e-3

    /// Every (photo, output) pair in the fixtures, with its style mix.
    static func cases() throws -> [(photo: String, key: String, mix: StyleMix, fixture: [String: NamedTensor])] {
        var result: [(String, String, StyleMix, [String: NamedTensor])] = []
        for name in try Fixtures.names(in: "network", prefix: "") {
            let fixture = try Fixtures.tensors(name)
            for key in fixture.keys.sorted() where key != "input" {
                let mix: StyleMix
                if key.hasPrefix("style_") {
                    mix = try StyleMix(style: Int(key.dropFirst("style_".count))!)
                } else {
                    // blend_3_0.5_12_0.5
                    let parts = key.split(separator: "_").dropFirst()
                    mix = try StyleMix(parsing: stride(from: parts.startIndex, to: parts.endIndex, by: 2)
                        .map { "\(parts[$0]):\(parts[$0 + 1])" }.joined(separator: ","))
                }
                result.append((name, key, mix, fixture))
            }
        }
        return result
    }

    static func image(from tensor: NamedTensor) -> Image {
        Image(width: tensor.shape[2], height: tensor.shape[1], rgb: tensor.values, alpha: nil)
    }

    func testCPUPathMatchesOnnxRuntime() throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let cases = try NetworkTests.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 10, "3 photos x 3 styles + a blend")
        XCTAssert(cases.contains { $0.key.hasPrefix("blend") })
        for c in cases {
            let output = try stylizer.stylize(NetworkTests.image(from: c.fixture["input"]!), mix: c.mix)
            assertClose(output.rgb, c.fixture[c.key]!.values, tolerance: NetworkTests.tolerance, "\(c.photo) \(c.key)")
        }
    }

    func testStrengthMixesWithTheOriginal() throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let fixture = try Fixtures.tensors("network/astronaut.gpsw")
        let photo = NetworkTests.image(from: fixture["input"]!)
        let styled = fixture["style_2"]!.values
        let half = try stylizer.stylize(photo, mix: try StyleMix(style: 2), strength: 0.25)
        let expected = zip(styled, photo.rgb).map { 0.25 * $0 + 0.75 * $1 }
        assertClose(half.rgb, expected, tolerance: NetworkTests.tolerance, "strength 0.25")
        let none = try stylizer.stylize(photo, mix: try StyleMix(style: 2), strength: 0)
        assertClose(none.rgb, photo.rgb, tolerance: 1e-6, "strength 0")
    }

    func testAlphaPassesThrough() throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let alpha = (0..<(40 * 36)).map { Float($0 % 256) / 255 }
        let image = Image(width: 40, height: 36, rgb: [Float](repeating: 0.5, count: 3 * 40 * 36), alpha: alpha)
        let output = try stylizer.stylize(image, mix: try StyleMix(style: 0))
        XCTAssertEqual(output.alpha, alpha)
        XCTAssertEqual(output.width, 40)
        XCTAssertEqual(output.height, 36)
    }

    func testTooSmallImagesAreRefused() throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let image = Image(width: 31, height: 64, rgb: [Float](repeating: 0, count: 3 * 31 * 64), alpha: nil)
        XCTAssertThrowsError(try stylizer.stylize(image, mix: try StyleMix(style: 0))) { error in
            XCTAssert("\(error)".contains("at least 32x32"), "\(error)")
        }
    }

    func testMultiplyAccumulateCount() {
        // 5.09 GMAC at 512x512 (NOTES.md: ~5.1 G, the first 9x9 conv alone ~2.0 G).
        XCTAssertEqual(StyleNetwork.macs(height: 512, width: 512), 5_086_642_176)
        let first = 512 * 512 * 32 * 3 * 81
        XCTAssertEqual(first, 2_038_431_744)
    }
}
