/// `Image`'s planar floats to the PNG encoder's interleaved 8-bit samples (decoding converts
/// to floats row by row in C: CImageShims/rows.c).
enum PixelConversion {
    /// Planar floats to interleaved 8-bit RGB or RGBA: round(v * 255) clamped
    /// to [0, 255]; NaN becomes 0.
    static func interleaved8(_ image: Image) -> [UInt8] {
        let count = image.pixelCount
        let channels = image.alpha == nil ? 3 : 4
        var out = [UInt8](repeating: 0, count: count * channels)
        func quantize(_ v: Float) -> UInt8 {
            let scaled = v * 255
            // `!(x > 0)` also catches NaN.
            if !(scaled > 0) { return 0 }
            if scaled >= 255 { return 255 }
            // round-half-away-from-zero without a libm roundf call (10% of
            // encode time): truncate, then look at the exact fraction.
            let whole = UInt8(scaled)
            return scaled - Float(whole) >= 0.5 ? whole + 1 : whole
        }
        out.withUnsafeMutableBufferPointer { out in
            image.rgb.withUnsafeBufferPointer { rgb in
                for i in 0..<count {
                    for c in 0..<3 { out[i * channels + c] = quantize(rgb[c * count + i]) }
                }
            }
            if let alpha = image.alpha {
                for i in 0..<count { out[i * 4 + 3] = quantize(alpha[i]) }
            }
        }
        return out
    }
}
