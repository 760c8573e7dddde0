import Foundation

/// The deterministic inputs the bench and the profiler feed the networks, so every path and
/// every run sees the same pixels.
public enum BenchInput {
    /// A photo-like picture (smooth gradients plus texture) in [0, 1].
    public static func image(width: Int, height: Int) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for c in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Float(state >> 40) / Float(1 << 24)
                    let smooth = 0.5 + 0.4 * sin(Float(x) * 0.02 + Float(c)) * cos(Float(y) * 0.015)
                    rgb[(c * height + y) * width + x] = 0.8 * smooth + 0.2 * noise
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb, alpha: nil)
    }

    /// The generated page's size.
    public static let pageWidth = 1280, pageHeight = 720

    /// A light 1280x720 page with a heading and eleven lines of printed text (Latin letters,
    /// digits, punctuation), slightly uneven light: the kind of scene `gpustyle text` reads.
    public static func textPage() throws -> Image {
        let width = pageWidth, height = pageHeight
        let renderer = try TextRenderer()
        let plane = width * height
        var rgb = [Float](repeating: 0, count: 3 * plane)
        for y in 0..<height {
            for x in 0..<width {
                let light = 0.86 + 0.06 * Float(x) / Float(width) - 0.04 * Float(y) / Float(height)
                rgb[y * width + x] = light
                rgb[plane + y * width + x] = light - 0.01
                rgb[2 * plane + y * width + x] = light - 0.04
            }
        }
        let lines: [(String, Int)] = [
            ("Quarterly report 2024", 48),
            ("Revenue grew by 12.5% to $4.2 million in the third quarter,", 26),
            ("driven by strong demand for our new product line (Model X-200).", 26),
            ("Operating costs fell 3% after the move to the Leeds warehouse;", 26),
            ("staff numbers stayed at 148. Orders shipped: 18,422 units.", 26),
            ("Contact: sales@example.com or +44 20 7946 0958 before 30 June.", 26),
            ("Next steps", 36),
            ("1. Open two more shops in Bristol and York by March.", 26),
            ("2. Cut delivery times from 5 days to 3 for 90% of orders.", 26),
            ("3. Review prices of the 24 items sold below cost.", 26),
            ("Page 3 of 12", 22),
        ]
        var top = 40
        for (text, pixels) in lines {
            let bitmap = try renderer.render(text, pixelSize: pixels)
            let left = 70
            for y in 0..<bitmap.height where top + y < height {
                for x in 0..<bitmap.width where left + x < width {
                    let a = Float(bitmap[x, y]) / 255
                    guard a > 0 else { continue }
                    let i = (top + y) * width + left + x
                    for c in 0..<3 { rgb[c * plane + i] = rgb[c * plane + i] * (1 - a) + 0.12 * a }
                }
            }
            top += bitmap.height + pixels / 2 + 8
        }
        return Image(width: width, height: height, rgb: rgb)
    }

    /// The recogniser's input for the bench and the profiler: the box (5 %, 4 %) to (55 %, 13 %)
    /// of the photo (the generated page's heading) resized to `width` x 48
    /// (tools/bench_text_onnxruntime.py cuts the same box).
    public static func textLine(_ image: Image, width: Int) -> Image {
        let x = image.width * 5 / 100, y = image.height * 4 / 100
        return image.cropped(x: x, y: y, width: max(1, image.width / 2), height: max(1, image.height * 9 / 100))
            .resized(width: width, height: TextRecognitionNetwork.inputHeight)
    }
}
