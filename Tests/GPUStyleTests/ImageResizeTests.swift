import XCTest
@testable import GPUStyle

/// `Image.resized` (rows on all cores, flat Float taps) gives bit for bit what the one-thread
/// loop over `AntialiasedResize.weights` gave, shrinking and enlarging by uneven factors.
final class ImageResizeTests: XCTestCase {
    /// The loop `resized` had before it ran in parallel.
    static func reference(_ image: Image, width newWidth: Int, height newHeight: Int) -> [Float] {
        let (width, height) = (image.width, image.height)
        let columns = AntialiasedResize.weights(input: width, output: newWidth)
        let rows = AntialiasedResize.weights(input: height, output: newHeight)
        var out = [Float](repeating: 0, count: 3 * newWidth * newHeight)
        var row = [Float](repeating: 0, count: width)
        for c in 0..<3 {
            for y in 0..<newHeight {
                let taps = rows[y]
                for x in 0..<width { row[x] = 0 }
                for (k, weight) in taps.weights.enumerated() {
                    let source = c * width * height + (taps.first + k) * width
                    let w = Float(weight)
                    for x in 0..<width { row[x] += w * image.rgb[source + x] }
                }
                for x in 0..<newWidth {
                    var value: Float = 0
                    for (k, weight) in columns[x].weights.enumerated() { value += Float(weight) * row[columns[x].first + k] }
                    out[c * newWidth * newHeight + y * newWidth + x] = value
                }
            }
        }
        return out
    }

    func testMatchesTheOneThreadLoop() {
        let image = ResizeTestImage.make(width: 301, height: 157)
        for (w, h) in [(960 / 4, 544 / 4), (300, 157), (77, 41), (640, 333), (1, 1), (301, 1)] {
            XCTAssertEqual(image.resized(width: w, height: h).rgb, Self.reference(image, width: w, height: h), "\(w)x\(h)")
        }
    }
}

/// A deterministic textured image.
private enum ResizeTestImage {
    static func make(width: Int, height: Int) -> Image {
        var state: UInt64 = 5
        let rgb = (0..<(3 * width * height)).map { i -> Float in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 0.5 + 0.3 * sin(Float(i % width) * 0.05) + 0.2 * Float(state >> 40) / Float(1 << 24)
        }
        return Image(width: width, height: height, rgb: rgb)
    }
}
