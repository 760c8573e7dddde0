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
    /// Output rows on all cores (the text detector's 1280x720 -> 960x544 took 10 ms on one).
    public func resized(width newWidth: Int, height newHeight: Int) -> Image {
        let resampler = AntialiasedResize.Resampler(from: self, width: newWidth, height: newHeight)
        var out = [Float](repeating: 0, count: 3 * newWidth * newHeight)
        rgb.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                let (rgb, out) = (rgb.baseAddress!, out.baseAddress!)
                ParallelFor.ranges(3 * newHeight, grain: resampler.rowGrain) { items in
                    let row = UnsafeMutablePointer<Float>.allocate(capacity: width)
                    defer { row.deallocate() }
                    for item in items {
                        let c = item / newHeight, y = item % newHeight
                        resampler.row(c, y, of: rgb, scratch: row, into: out + c * newWidth * newHeight + y * newWidth)
                    }
                }
            }
        }
        return Image(width: newWidth, height: newHeight, rgb: out)
    }
}

extension AntialiasedResize {
    /// One image's resize to `width` x `height`, an output row at a time (`Image.resized`'s rows;
    /// the face detector writes them straight into the network's input).
    struct Resampler {
        let sourceWidth: Int
        let sourcePixels: Int
        let width: Int
        let height: Int
        let columns: FlatTaps
        let rows: FlatTaps

        init(from image: Image, width: Int, height: Int) {
            precondition(image.width > 0 && image.height > 0 && width > 0 && height > 0, "empty image")
            sourceWidth = image.width
            sourcePixels = image.pixelCount
            self.width = width
            self.height = height
            columns = FlatTaps(AntialiasedResize.weights(input: image.width, output: width))
            rows = FlatTaps(AntialiasedResize.weights(input: image.height, output: height))
        }

        /// Output rows per parallel task (the text detector's 1280x720 -> 960x544 took 10 ms on one core).
        var rowGrain: Int { max(1, 16_384 / max(1, sourceWidth)) }

        /// Writes output row `y` of channel `c` (`width` floats) to `target`; `rgb` is the source's
        /// planes, `scratch` room for `sourceWidth` floats.
        func row(_ c: Int, _ y: Int, of rgb: UnsafePointer<Float>, scratch row: UnsafeMutablePointer<Float>,
                 into target: UnsafeMutablePointer<Float>) {
            for x in 0..<sourceWidth { row[x] = 0 }
            for k in rows.range(y) {
                let source = rgb + c * sourcePixels + (rows.first[y] + k - rows.start[y]) * sourceWidth
                let w = rows.weights[k]
                for x in 0..<sourceWidth { row[x] += w * source[x] }
            }
            for x in 0..<width {
                var value: Float = 0
                let base = columns.first[x] - columns.start[x]
                for k in columns.range(x) { value += columns.weights[k] * row[base + k] }
                target[x] = value
            }
        }
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

    /// All outputs' taps in flat arrays, the weights as Float: output i's are
    /// `weights[start[i]..<start[i + 1]]`, for inputs from `first[i]` on.
    struct FlatTaps {
        let first: [Int]
        let start: [Int]
        let weights: [Float]

        init(_ taps: [Taps]) {
            first = taps.map(\.first)
            var start = [0]
            for t in taps { start.append(start.last! + t.weights.count) }
            self.start = start
            weights = taps.flatMap { $0.weights.map { Float($0) } }
        }

        func range(_ i: Int) -> Range<Int> { start[i]..<start[i + 1] }
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
