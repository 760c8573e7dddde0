import Foundation

/// Luma, gradients and thin edges of the working-resolution image: the pixel-parallel front of
/// the rectangle detector.
struct EdgeMap {
    let width: Int
    let height: Int
    /// Integer box-downscale factor from the input image.
    let scale: Int
    /// Gradient magnitude (Sobel of the blurred luma, /8 so a 0→1 step gives 0.5...1).
    var magnitude: [Float]
    /// Sobel gradient components (same scale as `magnitude`).
    var gx: [Float]
    var gy: [Float]
    /// Non-maximum-suppressed magnitude: non-zero only on thin edges above the low threshold.
    var edges: [Float]
    /// Threshold above which an edge votes for lines.
    var strongThreshold: Float

    /// Working-image pixel centre → input-image pixel coordinates (centres at integers).
    func toImage(_ p: Point) -> Point {
        let s = Double(scale)
        return Point(x: (p.x + 0.5) * s - 0.5, y: (p.y + 0.5) * s - 0.5)
    }

    func toWorking(_ p: Point) -> Point {
        let s = Double(scale)
        return Point(x: (p.x + 0.5) / s - 0.5, y: (p.y + 0.5) / s - 0.5)
    }
}

enum DetectEdges {
    /// Longest side of the working image: detection works at this size, refinement at full size.
    static let workingSide = 480

    static func run(_ image: Image) -> EdgeMap {
        let scale = max(1, (max(image.width, image.height) + workingSide - 1) / workingSide)
        let w = image.width / scale, h = image.height / scale
        let luma = downscaledLuma(image, scale: scale, width: w, height: h)
        let blurred = gaussian5(luma, width: w, height: h)
        var magnitude = [Float](repeating: 0, count: w * h)
        var gx = [Float](repeating: 0, count: w * h)
        var gy = [Float](repeating: 0, count: w * h)
        sobel(blurred, width: w, height: h, magnitude: &magnitude, gx: &gx, gy: &gy)
        let (low, high) = thresholds(magnitude)
        let edges = suppressNonMaxima(magnitude, gx, gy, width: w, height: h, low: low)
        return EdgeMap(width: w, height: h, scale: scale, magnitude: magnitude, gx: gx, gy: gy, edges: edges,
                       strongThreshold: high)
    }

    /// Rec. 601 luma, averaged over scale x scale blocks.
    static func downscaledLuma(_ image: Image, scale: Int, width w: Int, height h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        let plane = image.width * image.height
        let norm = 1 / Float(scale * scale)
        image.rgb.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                ParallelFor.ranges(h, grain: 16) { rows in
                    for y in rows {
                        for x in 0..<w {
                            var sum: Float = 0
                            for dy in 0..<scale {
                                let row = (y * scale + dy) * image.width + x * scale
                                for dx in 0..<scale {
                                    let i = row + dx
                                    sum += 0.299 * rgb[i] + 0.587 * rgb[plane + i] + 0.114 * rgb[2 * plane + i]
                                }
                            }
                            out[y * w + x] = sum * norm
                        }
                    }
                }
            }
        }
        return out
    }

    /// Separable [1 4 6 4 1]/16 blur (σ ≈ 1), borders clamped.
    static func gaussian5(_ input: [Float], width w: Int, height h: Int) -> [Float] {
        var temp = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        input.withUnsafeBufferPointer { src in
            temp.withUnsafeMutableBufferPointer { tmp in
                for y in 0..<h {
                    let row = y * w
                    for x in 0..<w {
                        let a = src[row + max(x - 2, 0)], b = src[row + max(x - 1, 0)], c = src[row + x]
                        let d = src[row + min(x + 1, w - 1)], e = src[row + min(x + 2, w - 1)]
                        tmp[row + x] = (a + e + 4 * (b + d) + 6 * c) * (1 / 16)
                    }
                }
            }
        }
        temp.withUnsafeBufferPointer { tmp in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let r0 = max(y - 2, 0) * w, r1 = max(y - 1, 0) * w, r2 = y * w
                    let r3 = min(y + 1, h - 1) * w, r4 = min(y + 2, h - 1) * w
                    for x in 0..<w {
                        dst[r2 + x] = (tmp[r0 + x] + tmp[r4 + x] + 4 * (tmp[r1 + x] + tmp[r3 + x]) + 6 * tmp[r2 + x]) * (1 / 16)
                    }
                }
            }
        }
        return out
    }

    static func sobel(_ input: [Float], width w: Int, height h: Int, magnitude: inout [Float], gx: inout [Float], gy: inout [Float]) {
        input.withUnsafeBufferPointer { s in
            magnitude.withUnsafeMutableBufferPointer { mag in
                gx.withUnsafeMutableBufferPointer { gxOut in
                    gy.withUnsafeMutableBufferPointer { gyOut in
                        for y in 1..<(h - 1) {
                            for x in 1..<(w - 1) {
                                let i = y * w + x
                                let dx = (s[i - w + 1] + 2 * s[i + 1] + s[i + w + 1]) - (s[i - w - 1] + 2 * s[i - 1] + s[i + w - 1])
                                let dy = (s[i + w - 1] + 2 * s[i + w] + s[i + w + 1]) - (s[i - w - 1] + 2 * s[i - w] + s[i - w + 1])
                                gxOut[i] = dx * (1 / 8)
                                gyOut[i] = dy * (1 / 8)
                                mag[i] = (dx * dx + dy * dy).squareRoot() * (1 / 8)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Low and high edge thresholds: a fixed floor (so flat or noisy images give few edges) and
    /// a share of the image's strongest gradients (so low-contrast photos still give edges).
    static func thresholds(_ magnitude: [Float]) -> (low: Float, high: Float) {
        var histogram = [Int](repeating: 0, count: 256)
        for m in magnitude { histogram[min(255, Int(m * 512))] += 1 }
        // The 90th percentile of all gradient magnitudes.
        let target = magnitude.count * 9 / 10
        var seen = 0, bin = 0
        while bin < 255 && seen + histogram[bin] < target { seen += histogram[bin]; bin += 1 }
        let high = max(Float(bin) / 512, 0.02)
        return (high * 0.4, high)
    }

    /// Keeps pixels whose magnitude is a maximum across the edge (Canny's thinning).
    static func suppressNonMaxima(_ magnitude: [Float], _ gx: [Float], _ gy: [Float], width w: Int, height h: Int, low: Float) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        let tan22 = Float(0.41421356), tan67 = Float(2.41421356)
        magnitude.withUnsafeBufferPointer { mag in
            gx.withUnsafeBufferPointer { gx in
                gy.withUnsafeBufferPointer { gy in
                    out.withUnsafeMutableBufferPointer { out in
                        for y in 2..<max(2, h - 2) {
                            for x in 2..<max(2, w - 2) {
                                let i = y * w + x
                                let m = mag[i]
                                guard m >= low else { continue }
                                // The neighbour across the edge: gradient direction quantised to
                                // 0°, 45°, 90° or 135° by comparing |gy| with |gx| tan(22.5°/67.5°).
                                let ax = abs(gx[i]), ay = abs(gy[i])
                                let offset: Int
                                if ay <= ax * tan22 {
                                    offset = 1
                                } else if ay >= ax * tan67 {
                                    offset = w
                                } else {
                                    offset = (gx[i] > 0) == (gy[i] > 0) ? w + 1 : w - 1
                                }
                                if m >= mag[i - offset] && m > mag[i + offset] { out[i] = m }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// |cos| of the angle between an edge pixel's gradient and a unit normal.
    @inline(__always)
    static func alignment(_ map: EdgeMap, _ i: Int, _ n: Point) -> Double {
        let m = Double(map.magnitude[i])
        guard m > 0 else { return 0 }
        return abs(Double(map.gx[i]) * n.x + Double(map.gy[i]) * n.y) / m
    }
}
