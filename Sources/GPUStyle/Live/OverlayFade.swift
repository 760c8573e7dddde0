/// The stylized images on show: the newest, and while a new style fades in, the one before it.
struct OverlayFade {
    private(set) var current: (image: Image, step: Int)?
    private var previous: Image?
    private var fadeStart = 0.0

    /// A new stylized image: the same style refreshes the current one; a new style starts a
    /// crossfade from the current one.
    mutating func receive(_ image: Image, step: Int, at time: Double) {
        if let current, current.step != step {
            previous = current.image
            fadeStart = time
        }
        current = (image, step)
    }

    mutating func clear() {
        current = nil
        previous = nil
    }

    /// The image to show at `time`: the current one, blended with the previous one (resampled to
    /// the current one's size) during the first `duration` seconds of its style.
    mutating func image(at time: Double, duration: Double) -> Image? {
        guard let current else { return nil }
        guard let old = previous, duration > 0, time - fadeStart < duration else {
            previous = nil
            return current.image
        }
        let a = Float(max(0, time - fadeStart) / duration)
        let resized = old.width == current.image.width && old.height == current.image.height
            ? old : old.resampledBilinear(width: current.image.width, height: current.image.height)
        var rgb = current.image.rgb
        for i in rgb.indices { rgb[i] = resized.rgb[i] + a * (rgb[i] - resized.rgb[i]) }
        return Image(width: current.image.width, height: current.image.height, rgb: rgb)
    }
}

extension Image {
    /// Bilinear resampling to any size (pixel centres aligned), RGB only.
    func resampledBilinear(width w: Int, height h: Int) -> Image {
        var out = [Float](repeating: 0, count: 3 * w * h)
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        for y in 0..<h {
            let fy = min(max(0, (Double(y) + 0.5) * sy - 0.5), Double(height - 1))
            let y0 = Int(fy), y1 = min(y0 + 1, height - 1), wy = Float(fy - Double(y0))
            for x in 0..<w {
                let fx = min(max(0, (Double(x) + 0.5) * sx - 0.5), Double(width - 1))
                let x0 = Int(fx), x1 = min(x0 + 1, width - 1), wx = Float(fx - Double(x0))
                for c in 0..<3 {
                    let p = c * width * height
                    let top = rgb[p + y0 * width + x0] + wx * (rgb[p + y0 * width + x1] - rgb[p + y0 * width + x0])
                    let bottom = rgb[p + y1 * width + x0] + wx * (rgb[p + y1 * width + x1] - rgb[p + y1 * width + x0])
                    out[c * w * h + y * w + x] = top + wy * (bottom - top)
                }
            }
        }
        return Image(width: w, height: h, rgb: out)
    }
}
