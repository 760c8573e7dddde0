/// `Image`'s planar floats to the PNG encoder's interleaved 8-bit samples (decoding converts
/// to floats row by row in C: CImageShims/rows.c).
enum PixelConversion {
    /// Planar floats to interleaved 8-bit RGB or RGBA: round(v * 255) clamped
    /// to [0, 255]; NaN becomes 0.
    static func interleaved8(_ image: Image) -> [UInt8] {
        let channels = image.alpha == nil ? 3 : 4
        var out = [UInt8](repeating: 0, count: image.pixelCount * channels)
        out.withUnsafeMutableBufferPointer { out in
            for y in 0..<image.height {
                interleaved8(image, row: y, into: UnsafeMutableBufferPointer(rebasing: out[(y * image.width * channels)...]))
            }
        }
        return out
    }

    /// Row `y` of `image` as interleaved 8-bit RGB or RGBA into `out` (width * channels bytes):
    /// what the streaming PNG writer needs, one row at a time.
    static func interleaved8(_ image: Image, row y: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        let count = image.pixelCount, width = image.width, start = y * width
        let channels = image.alpha == nil ? 3 : 4
        image.rgb.withUnsafeBufferPointer { rgb in
            for x in 0..<width {
                for c in 0..<3 { out[x * channels + c] = quantize(rgb[c * count + start + x]) }
            }
        }
        if let alpha = image.alpha {
            alpha.withUnsafeBufferPointer { alpha in
                for x in 0..<width { out[x * 4 + 3] = quantize(alpha[start + x]) }
            }
        }
    }

    @inline(__always)
    static func quantize(_ v: Float) -> UInt8 {
        let scaled = v * 255
        // `!(x > 0)` also catches NaN.
        if !(scaled > 0) { return 0 }
        if scaled >= 255 { return 255 }
        // round-half-away-from-zero without a libm roundf call (10% of
        // encode time): truncate, then look at the exact fraction.
        let whole = UInt8(scaled)
        return scaled - Float(whole) >= 0.5 ? whole + 1 : whole
    }
}
