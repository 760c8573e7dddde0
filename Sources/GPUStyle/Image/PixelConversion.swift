import CImageShims

/// Conversions between the codecs' interleaved integer samples and `Image`'s
/// planar floats.
enum PixelConversion {
    /// Interleaved gray / gray+alpha / RGB / RGBA samples (8- or 16-bit, native
    /// endian) to planar floats. Gray is replicated into all three planes.
    static func image(from pixels: gps_pixels) -> Image {
        let width = Int(pixels.width), height = Int(pixels.height)
        let channels = Int(pixels.channels)
        let count = width * height
        let hasAlpha = channels == 2 || channels == 4
        let colorChannels = hasAlpha ? channels - 1 : channels

        // Every element is written below; zero-filling first would cost a pass
        // over up to 1.2 GB.
        var rgb = [Float](unsafeUninitializedCapacity: 3 * count) { _, initialized in initialized = 3 * count }
        var alpha: [Float]? = hasAlpha
            ? [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count } : nil

        // One generic loop for both sample widths. Dividing (not multiplying by
        // 1/maximum) gives the correctly rounded float of sample/maximum, so
        // 8-bit values survive an encode/decode round trip bit-exactly.
        func convert<Sample: BinaryInteger>(_: Sample.Type, maximum: Float) {
            let samples = UnsafePointer<Sample>(pixels.data.assumingMemoryBound(to: Sample.self))
            rgb.withUnsafeMutableBufferPointer { planes in
                for i in 0..<count {
                    let base = i * channels
                    for c in 0..<3 {
                        planes[c * count + i] = Float(samples[base + min(c, colorChannels - 1)]) / maximum
                    }
                }
            }
            if hasAlpha {
                alpha!.withUnsafeMutableBufferPointer { plane in
                    for i in 0..<count { plane[i] = Float(samples[i * channels + channels - 1]) / maximum }
                }
            }
        }
        if pixels.bit_depth == 16 {
            convert(UInt16.self, maximum: 65535)
        } else {
            convert(UInt8.self, maximum: 255)
        }
        return Image(width: width, height: height, rgb: rgb, alpha: alpha)
    }

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
