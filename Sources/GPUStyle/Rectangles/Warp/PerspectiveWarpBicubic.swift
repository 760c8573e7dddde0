import Foundation

/// `CPUPerspectiveWarper`'s bicubic kernel (Keys, a = −0.5, clamp to border, results clamped to
/// [0, 1]), source coordinates per pixel in Double: one warp's pointers and parameters, shared
/// read-only by the worker threads; each writes disjoint rows.
struct BicubicWarpJob: @unchecked Sendable {
    let src: UnsafePointer<Float>
    let srcWidth: Int
    let srcHeight: Int
    let dst: UnsafeMutablePointer<Float>
    let width: Int
    let height: Int
    let planes: Int
    let m: [Double]
    let originX: Int
    let originY: Int

    /// Keys' cubic convolution weights (a = −0.5) for fractional position t in [0, 1).
    @inline(__always)
    static func cubicWeights(_ t: Float) -> SIMD4<Float> {
        let a: Float = -0.5
        func near(_ x: Float) -> Float { ((a + 2) * x - (a + 3)) * x * x + 1 }           // |x| <= 1
        func far(_ x: Float) -> Float { ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }      // 1 < |x| < 2
        return SIMD4(far(1 + t), near(t), near(1 - t), far(2 - t))
    }

    func bicubicRows(_ rows: Range<Int>) {
        let outPlane = width * height, srcPlane = srcWidth * srcHeight
        let lastX = srcWidth - 1, lastY = srcHeight - 1
        for y in rows {
            let oy = Double(originY + y)
            for x in 0..<width {
                let ox = Double(originX + x)
                let w = m[6] * ox + m[7] * oy + m[8]
                var sx = (m[0] * ox + m[1] * oy + m[2]) / w
                var sy = (m[3] * ox + m[4] * oy + m[5]) / w
                // Beyond one pixel outside, every tap is the edge pixel: clamp there (keeps NaN/inf out).
                sx = sx.isNaN ? -1 : min(max(sx, -1), Double(srcWidth))
                sy = sy.isNaN ? -1 : min(max(sy, -1), Double(srcHeight))
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let wx = BicubicWarpJob.cubicWeights(Float(sx - Double(x0))), wy = BicubicWarpJob.cubicWeights(Float(sy - Double(y0)))
                var columns = SIMD4<Int>()
                var rowsOffsets = SIMD4<Int>()
                for k in 0..<4 {
                    columns[k] = min(max(x0 - 1 + k, 0), lastX)
                    rowsOffsets[k] = min(max(y0 - 1 + k, 0), lastY) * srcWidth
                }
                for c in 0..<planes {
                    let p = src + c * srcPlane
                    var sum: Float = 0
                    for r in 0..<4 {
                        let row = p + rowsOffsets[r]
                        let h = wx[0] * row[columns[0]] + wx[1] * row[columns[1]] + wx[2] * row[columns[2]] + wx[3] * row[columns[3]]
                        sum += wy[r] * h
                    }
                    dst[c * outPlane + y * width + x] = min(max(sum, 0), 1)
                }
            }
        }
    }
}
