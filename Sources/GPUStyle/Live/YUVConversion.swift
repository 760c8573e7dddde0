/// Colour conversion between Y4M frames and the planar RGB `Image` the stages work on.
///
/// ITU-R BT.601 (Kr = 0.299, Kb = 0.114), the matrix ffmpeg uses for standard-definition and
/// unlabelled video: E'y = Kr R + (1 − Kr − Kb) G + Kb B, E'pb = (B − E'y) / (2 (1 − Kb)),
/// E'pr = (R − E'y) / (2 (1 − Kr)). Video range puts E'y on 16–235 and E'pb/E'pr on 16–240 around
/// 128 (219 and 224 levels); full range uses 0–255 for both.
///
/// Chroma is upsampled bilinearly with the layout's siting (centred between luma samples, as
/// ffmpeg's swscale takes 4:2:0 JPEG and 4:2:2 too; MPEG-2 4:2:0 co-sited with the left luma
/// column) and downsampled by averaging each block of luma positions.
public enum YUVConversion {
    static let kr: Float = 0.299, kb: Float = 0.114

    /// E'r = E'y + rv E'pr, E'g = E'y + gu E'pb + gv E'pr, E'b = E'y + bu E'pb (shared with the GLSL kernel).
    static var coefficients: (rv: Float, gu: Float, gv: Float, bu: Float) {
        let rv = 2 * (1 - kr), bu = 2 * (1 - kb)
        return (rv, -bu * kb / (1 - kr - kb), -rv * kr / (1 - kr - kb), bu)
    }

    struct Levels {
        let lumaOffset: Float, lumaScale: Float, chromaScale: Float
        init(full: Bool) {
            lumaOffset = full ? 0 : 16
            lumaScale = full ? 255 : 219
            chromaScale = full ? 255 : 224
        }
    }

    /// The frame as planar RGB in [0, 1].
    public static func image(from frame: YUVFrame, fullRange: Bool = false) -> Image {
        let w = frame.width, h = frame.height, plane = w * h
        var rgb = [Float](repeating: 0, count: 3 * plane)
        let levels = Levels(full: fullRange)
        let (cw, ch) = frame.chroma.chromaSize(width: w, height: h)
        let (positions, weights) = chromaTaps(count: w, factor: frame.chroma.factors.x,
                                              centred: isCentredHorizontally(frame.chroma), chromaCount: cw)
        let (rows, rowWeights) = chromaTaps(count: h, factor: frame.chroma.factors.y, centred: true, chromaCount: ch)
        let mono: Bool = { if case .mono = frame.chroma { return true } else { return false } }()
        let ys = 1 / levels.lumaScale, cs = 1 / levels.chromaScale
        let (rv, gu, gv, bu) = coefficients
        frame.y.withUnsafeBufferPointer { yp in
            frame.u.withUnsafeBufferPointer { up in
                frame.v.withUnsafeBufferPointer { vp in
                    rgb.withUnsafeMutableBufferPointer { out in
                        ParallelFor.ranges(h, grain: 16) { chunk in
                            for y in chunk {
                                let r0 = rows[2 * y], r1 = rows[2 * y + 1], wy = rowWeights[y]
                                for x in 0..<w {
                                    let luma = (Float(yp[y * w + x]) - levels.lumaOffset) * ys
                                    var u: Float = 0, v: Float = 0
                                    if !mono {
                                        let c0 = positions[2 * x], c1 = positions[2 * x + 1], wx = weights[x]
                                        let i00 = r0 * cw + c0, i01 = r0 * cw + c1, i10 = r1 * cw + c0, i11 = r1 * cw + c1
                                        let uTop = Float(up[i00]) + wx * (Float(up[i01]) - Float(up[i00]))
                                        let uBottom = Float(up[i10]) + wx * (Float(up[i11]) - Float(up[i10]))
                                        let vTop = Float(vp[i00]) + wx * (Float(vp[i01]) - Float(vp[i00]))
                                        let vBottom = Float(vp[i10]) + wx * (Float(vp[i11]) - Float(vp[i10]))
                                        u = (uTop + wy * (uBottom - uTop) - 128) * cs
                                        v = (vTop + wy * (vBottom - vTop) - 128) * cs
                                    }
                                    let i = y * w + x
                                    out[i] = min(1, max(0, luma + rv * v))
                                    out[plane + i] = min(1, max(0, luma + gu * u + gv * v))
                                    out[2 * plane + i] = min(1, max(0, luma + bu * u))
                                }
                            }
                        }
                    }
                }
            }
        }
        return Image(width: w, height: h, rgb: rgb)
    }

    /// The image as a frame of the given layout.
    public static func frame(from image: Image, chroma: ChromaLayout, fullRange: Bool = false) -> YUVFrame {
        let w = image.width, h = image.height, plane = w * h
        let levels = Levels(full: fullRange)
        let (cw, ch) = chroma.chromaSize(width: w, height: h)
        let (fx, fy) = chroma.factors
        var luma = [UInt8](repeating: 0, count: plane)
        var u = [UInt8](repeating: 128, count: cw * ch), v = u
        let kg = 1 - kr - kb
        let uScale = levels.chromaScale / (2 * (1 - kb)), vScale = levels.chromaScale / (2 * (1 - kr))
        let mono: Bool = { if case .mono = chroma { return true } else { return false } }()
        image.rgb.withUnsafeBufferPointer { rgb in
            luma.withUnsafeMutableBufferPointer { yp in
                u.withUnsafeMutableBufferPointer { up in
                    v.withUnsafeMutableBufferPointer { vp in
                        // One chroma row (and the fy luma rows it covers) per step: rows are independent.
                        ParallelFor.ranges(mono ? 0 : ch, grain: 8) { chromaRows in
                            for cy in chromaRows {
                                for cx in 0..<cw {
                                    var su: Float = 0, sv: Float = 0, n: Float = 0
                                    for y in (cy * fy)..<min(h, cy * fy + fy) {
                                        for x in (cx * fx)..<min(w, cx * fx + fx) {
                                            let i = y * w + x
                                            let r = rgb[i], g = rgb[plane + i], b = rgb[2 * plane + i]
                                            let e = kr * r + kg * g + kb * b
                                            su += b - e
                                            sv += r - e
                                            n += 1
                                        }
                                    }
                                    up[cy * cw + cx] = quantize(128 + su / n * uScale)
                                    vp[cy * cw + cx] = quantize(128 + sv / n * vScale)
                                }
                            }
                        }
                        ParallelFor.ranges(h, grain: 16) { rows in
                            for y in rows {
                                for x in 0..<w {
                                    let i = y * w + x
                                    let e = kr * rgb[i] + kg * rgb[plane + i] + kb * rgb[2 * plane + i]
                                    yp[i] = quantize(levels.lumaOffset + e * levels.lumaScale)
                                }
                            }
                        }
                    }
                }
            }
        }
        return YUVFrame(width: w, height: h, chroma: chroma, y: luma, u: mono ? [] : u, v: mono ? [] : v)
    }

    /// The frame's luma as a grey `Image` (each channel the luma code / 255, whatever the range):
    /// what the live trackers look at (`LiveDigits`, `LiveText`), the same for the frames things
    /// are tracked in and the frames they are carried from.
    static func grey(_ frame: YUVFrame) -> Image {
        let n = frame.width * frame.height
        var rgb = [Float](repeating: 0, count: 3 * n)
        rgb.withUnsafeMutableBufferPointer { out in
            frame.y.withUnsafeBufferPointer { y in
                let scale: Float = 1 / 255
                for i in 0..<n {
                    let v = Float(y[i]) * scale
                    out[i] = v
                    out[n + i] = v
                    out[2 * n + i] = v
                }
            }
        }
        return Image(width: frame.width, height: frame.height, rgb: rgb)
    }

    /// An RGB colour (components in [0, 1]) as Y, Cb, Cr codes of either range (BT.601, as
    /// `frame(from:)` converts a pixel): for drawing in colour on a Y4M frame.
    static func codes(red: Float, green: Float, blue: Float, fullRange: Bool) -> (y: UInt8, u: UInt8, v: UInt8) {
        let levels = Levels(full: fullRange)
        let e = kr * red + (1 - kr - kb) * green + kb * blue
        return (quantize(levels.lumaOffset + e * levels.lumaScale),
                quantize(128 + (blue - e) * levels.chromaScale / (2 * (1 - kb))),
                quantize(128 + (red - e) * levels.chromaScale / (2 * (1 - kr))))
    }

    @inline(__always) static func quantize(_ value: Float) -> UInt8 {
        UInt8(min(255, max(0, value + 0.5)))
    }

    static func isCentredHorizontally(_ chroma: ChromaLayout) -> Bool {
        if case .yuv420(let centred) = chroma { return centred }
        return true
    }

    /// For each of `count` luma positions, the two chroma samples to blend (pairs in the first
    /// array) and the weight of the second. Centred siting puts chroma sample i at luma position
    /// factor·i + (factor − 1)/2, co-sited at factor·i; edges clamp.
    static func chromaTaps(count: Int, factor: Int, centred: Bool, chromaCount: Int) -> ([Int], [Float]) {
        var taps = [Int](repeating: 0, count: 2 * count)
        var weights = [Float](repeating: 0, count: count)
        guard chromaCount > 0 else { return (taps, weights) }
        let offset = centred ? Double(factor - 1) / 2 : 0
        for p in 0..<count {
            let position = (Double(p) - offset) / Double(factor)
            let lower = Int(position.rounded(.down))
            let weight = position - Double(lower)
            taps[2 * p] = min(chromaCount - 1, max(0, lower))
            taps[2 * p + 1] = min(chromaCount - 1, max(0, lower + 1))
            weights[p] = Float(weight)
        }
        return (taps, weights)
    }
}
