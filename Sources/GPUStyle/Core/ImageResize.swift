extension Image {
    /// The smallest integer factor that box-downscales a width x height image to at most
    /// `maximumPixels` pixels (leftover columns and rows dropped). An integer box keeps the
    /// reduction a plain average, with no resampling phase to get wrong.
    static func boxFactor(width: Int, height: Int, maximumPixels: Int) -> Int {
        var factor = 1
        while (width / factor) * (height / factor) > maximumPixels { factor += 1 }
        return factor
    }

    /// A copy scaled so that its longer side is at most `maxSide` pixels, by averaging the
    /// source pixels each output pixel covers (box filter: no aliasing when shrinking).
    public func downscaled(toFit maxSide: Int) -> Image {
        let scale = Double(Swift.max(width, height)) / Double(maxSide)
        guard scale > 1 else { return self }
        let w = Swift.max(1, Int((Double(width) / scale).rounded()))
        let h = Swift.max(1, Int((Double(height) / scale).rounded()))
        func resample(_ plane: ArraySlice<Float>, into out: inout [Float], at offset: Int) {
            let base = plane.startIndex
            for y in 0..<h {
                let y0 = y * height / h, y1 = Swift.max(y0 + 1, (y + 1) * height / h)
                for x in 0..<w {
                    let x0 = x * width / w, x1 = Swift.max(x0 + 1, (x + 1) * width / w)
                    var sum: Float = 0
                    for sy in y0..<y1 { for sx in x0..<x1 { sum += plane[base + sy * width + sx] } }
                    out[offset + y * w + x] = sum / Float((y1 - y0) * (x1 - x0))
                }
            }
        }
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 { resample(self.rgb[(c * width * height)..<((c + 1) * width * height)], into: &rgb, at: c * w * h) }
        var alpha: [Float]? = nil
        if let source = self.alpha {
            var a = [Float](repeating: 0, count: w * h)
            resample(source[...], into: &a, at: 0)
            alpha = a
        }
        return Image(width: w, height: h, rgb: rgb, alpha: alpha)
    }
}

extension Image {
    /// A copy resized to `newWidth` x `newHeight` by `AntialiasedResize` (bilinear with
    /// half-pixel centres when enlarging, a widened triangle when shrinking); alpha dropped.
    public func resized(width newWidth: Int, height newHeight: Int) -> Image {
        precondition(width > 0 && height > 0 && newWidth > 0 && newHeight > 0, "empty image")
        let columns = AntialiasedResize.weights(input: width, output: newWidth)
        let rows = AntialiasedResize.weights(input: height, output: newHeight)
        var out = [Float](repeating: 0, count: 3 * newWidth * newHeight)
        var row = [Float](repeating: 0, count: width)
        for c in 0..<3 {
            for y in 0..<newHeight {
                let taps = rows[y]
                for x in 0..<width { row[x] = 0 }
                for (k, weight) in taps.weights.enumerated() {
                    let source = c * pixelCount + (taps.first + k) * width
                    let w = Float(weight)
                    for x in 0..<width { row[x] += w * rgb[source + x] }
                }
                let target = c * newWidth * newHeight + y * newWidth
                for x in 0..<newWidth {
                    let taps = columns[x]
                    var value: Float = 0
                    for (k, weight) in taps.weights.enumerated() { value += Float(weight) * row[taps.first + k] }
                    out[target + x] = value
                }
            }
        }
        return Image(width: newWidth, height: newHeight, rgb: out)
    }
}

/// The taps of a separable antialiased bilinear resize (a triangle filter widened by the
/// downscaling factor, like Pillow's BILINEAR and `torch.nn.functional.interpolate(mode:
/// "bilinear", antialias: true)`; plain bilinear with half-pixel centres when enlarging).
enum AntialiasedResize {
    struct Taps {
        let first: Int
        let weights: [Double]
    }

    /// For each output index, the first input index it reads and the normalized weights.
    static func weights(input: Int, output: Int) -> [Taps] {
        let scale = Double(input) / Double(output)
        let support = max(1, scale)
        let invScale = scale >= 1 ? 1 / scale : 1
        return (0..<output).map { i in
            let centre = scale * (Double(i) + 0.5)
            let first = max(Int(centre - support + 0.5), 0)
            let last = min(Int(centre + support + 0.5), input)
            var weights = (first..<last).map { j in max(0, 1 - abs((Double(j) - centre + 0.5) * invScale)) }
            let total = weights.reduce(0, +)
            if total > 0 { weights = weights.map { $0 / total } }
            return Taps(first: first, weights: weights)
        }
    }
}
