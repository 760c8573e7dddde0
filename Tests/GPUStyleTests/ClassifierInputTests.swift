import Foundation
import XCTest
@testable import GPUStyle

/// `ClassifierInput` against the crops `tools/make_classify_fixtures.py` made with torch
/// (antialiased bilinear to a 256 shorter side, centre 224 crop with half-to-even offsets).
final class ClassifierInputTests: XCTestCase {
    struct Case: Decodable {
        let source: String
        let crop_png: String
        let source_size: [Int]
        let resized_size: [Int]
        let crop_top_left: [Int]
        let normalized_channel_means: [Double]
    }

    func testCropsMatchTorchvisionsRecipe() throws {
        let folder = Fixtures.root.appendingPathComponent("classify")
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: folder.appendingPathComponent("preprocess.json")))
        XCTAssertEqual(cases.count, 2, "one enlarged, one reduced photo")
        let input = ClassifierInput()
        for item in cases {
            let source = try ImageIO.read(path: folder.appendingPathComponent(item.source).standardized.path)
            XCTAssertEqual([source.height, source.width], item.source_size, item.source)
            let size = input.resizedSize(width: source.width, height: source.height)
            XCTAssertEqual([size.height, size.width], item.resized_size, item.source)
            let origin = input.cropOrigin(width: size.width, height: size.height)
            XCTAssertEqual([origin.y, origin.x], item.crop_top_left, item.source)

            let crop = input.crop(source)
            let expected = try ImageIO.read(path: folder.appendingPathComponent(item.crop_png).path)
            XCTAssertEqual(crop.width, 224)
            XCTAssertEqual(expected.width, 224)
            var exact = 0, worst: Float = 0
            for (a, b) in zip(crop.rgb, expected.rgb) {
                let difference = abs(a - b) * 255
                worst = max(worst, difference)
                if difference < 0.01 { exact += 1 }
            }
            print("ClassifierInput \(item.source): \(exact) of \(crop.rgb.count) values exact, largest difference \(worst) levels")
            // Rounding ties of the filter sums may land on the other integer.
            XCTAssertLessThanOrEqual(worst, 1.01, "\(item.source): largest difference \(worst) levels")
            XCTAssertGreaterThanOrEqual(Double(exact) / Double(crop.rgb.count), 0.99, "\(item.source): \(exact) exact values")

            let tensor = input.tensor(source)
            for c in 0..<3 {
                let mean = tensor[c * 224 * 224..<(c + 1) * 224 * 224].reduce(0.0) { $0 + Double($1) } / Double(224 * 224)
                XCTAssertEqual(mean, item.normalized_channel_means[c], accuracy: 1e-3, "\(item.source) channel \(c)")
            }
        }
    }
}
