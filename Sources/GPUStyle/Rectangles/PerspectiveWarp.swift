import Foundation

/// How a warp samples the source between pixel centres.
public enum WarpInterpolation: String, Sendable, CaseIterable {
    /// 2×2 taps, weights from the fractional position.
    case bilinear
    /// 4×4 taps, Keys' cubic convolution with a = −0.5 (Catmull-Rom); results clamped to [0, 1].
    case bicubic
}

/// Resamples an image through a homography (the CPU kernel `CPUPerspectiveWarper`, the GLSL kernel
/// `VulkanPerspectiveWarper`; both follow the same definition):
///
/// output pixel (i, j) of a `width` × `height` result is the source sampled at
/// `outputToSource.apply((originX + i, originY + j))`, in pixel coordinates (centres at integers,
/// origin top-left). Sampling clamps to the border: taps outside the image read the nearest edge
/// pixel. Bilinear: with x0 = ⌊sx⌋, fx = sx − x0 (and the same for y),
/// top = p(x0, y0) + fx·(p(x0+1, y0) − p(x0, y0)), bottom likewise on row y0+1,
/// value = top + fy·(bottom − top). Every channel (and alpha, when present) is warped.
public protocol PerspectiveWarper: AnyObject {
    var name: String { get }
    func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
              originX: Int, originY: Int, interpolation: WarpInterpolation) throws -> Image
}

extension PerspectiveWarper {
    public func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
                     interpolation: WarpInterpolation = .bilinear) throws -> Image {
        try warp(source, outputToSource: outputToSource, width: width, height: height, originX: 0, originY: 0,
                 interpolation: interpolation)
    }
}

/// Perspective correction of a quad, like Core Image's CIPerspectiveCorrection.
public enum PerspectiveCorrection {
    public struct SizeError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Largest side of a rectified picture.
    public static let maximumSide = 16384

    /// The picture inside `quad`, straightened to a `width` × `height` rectangle (default:
    /// `quad.rectifiedSize`). Convention: output pixel centres (0, 0), (W−1, 0), (W−1, H−1) and
    /// (0, H−1) sample exactly the quad's top-left, top-right, bottom-right and bottom-left corners.
    public static func rectify(_ image: Image, quad: Quad, width: Int? = nil, height: Int? = nil,
                               interpolation: WarpInterpolation = .bilinear,
                               warper: PerspectiveWarper = CPUPerspectiveWarper()) throws -> Image {
        try quad.validateForWarp()
        let size = quad.rectifiedSize
        let w = width ?? size.width, h = height ?? size.height
        try checkSize(width: w, height: h)
        let mapping = try Homography.rectangle(width: w, height: h, to: quad)
        return try warper.warp(image, outputToSource: mapping, width: w, height: h, originX: 0, originY: 0,
                               interpolation: interpolation)
    }

    public static func checkSize(width: Int, height: Int) throws {
        guard (2...maximumSide).contains(width), (2...maximumSide).contains(height) else {
            throw SizeError(description: "output size \(width)x\(height) is out of range: each side must be 2 to \(maximumSide) pixels")
        }
    }
}

/// The CPU kernel: rows in parallel; bilinear rows in segments of 8 pixels with Float SIMD.
///
/// Precision: a Float source coordinate near x = 2000 is only good to ~1e-4 px. So each run of
/// `segment` output pixels gets, in Double, an integer source origin near where it lands and the
/// homography re-expressed relative to that origin and the run's first pixel; the per-pixel Float
/// arithmetic then works on offsets of a few tens of pixels (error ~1e-6 px).
public final class CPUPerspectiveWarper: PerspectiveWarper {
    public init() {}

    public var name: String { "cpu (\(ParallelFor.workers) threads)" }

    static let segment = 32

    public func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
                     originX: Int = 0, originY: Int = 0, interpolation: WarpInterpolation = .bilinear) throws -> Image {
        precondition(width >= 0 && height >= 0, "negative output size")
        precondition(source.width > 0 && source.height > 0, "empty source image")
        let planes = source.alpha == nil ? 3 : 4
        let count = width * height
        // Every element is written by the kernel: skip zero-filling (a 1024x768 result is 9 MB).
        var output = [Float](unsafeUninitializedCapacity: planes * count) { _, initialized in initialized = planes * count }
        var sourcePlanes = source.rgb
        if let alpha = source.alpha { sourcePlanes += alpha }
        let m = outputToSource.matrix
        sourcePlanes.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                let job = WarpJob(src: src.baseAddress!, srcWidth: source.width, srcHeight: source.height,
                                  dst: dst.baseAddress!, width: width, height: height, planes: planes,
                                  m: m, originX: originX, originY: originY)
                let grain = max(1, 16384 / max(width, 1))
                ParallelFor.ranges(height, grain: grain) { rows in
                    switch interpolation {
                    case .bilinear: job.bilinearRows(rows)
                    case .bicubic: job.bicubicRows(rows)
                    }
                }
            }
        }
        let rgb = planes == 3 ? output : Array(output[0..<(3 * count)])
        let alpha = planes == 4 ? Array(output[(3 * count)...]) : nil
        return Image(width: width, height: height, rgb: rgb, alpha: alpha)
    }
}

/// One warp's pointers and parameters (shared read-only by the worker threads; each writes
/// disjoint rows).
struct WarpJob: @unchecked Sendable {
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

    /// Bilinear sample of every plane at (sx, sy) in Double (reference path for runs whose
    /// local parameters are not finite, e.g. at the horizon).
    @inline(__always)
    private func bilinearPixel(_ sx: Double, _ sy: Double, out: Int) {
        let cx = sx.isNaN ? 0 : min(max(sx, 0), Double(srcWidth - 1))
        let cy = sy.isNaN ? 0 : min(max(sy, 0), Double(srcHeight - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let dx = x0 < srcWidth - 1 ? 1 : 0, dy = y0 < srcHeight - 1 ? srcWidth : 0
        let plane = srcWidth * srcHeight, outPlane = width * height
        for c in 0..<planes {
            let p = src + c * plane + y0 * srcWidth + x0
            let top = p[0] + fx * (p[dx] - p[0])
            let bottom = p[dy] + fx * (p[dy + dx] - p[dy])
            dst[c * outPlane + out] = top + fy * (bottom - top)
        }
    }

    func bilinearRows(_ rows: Range<Int>) {
        let segment = CPUPerspectiveWarper.segment
        let outPlane = width * height, srcPlane = srcWidth * srcHeight
        let m00 = m[0], m01 = m[1], m02 = m[2], m10 = m[3], m11 = m[4], m12 = m[5], m20 = m[6], m21 = m[7], m22 = m[8]
        let lane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let lastX = srcWidth - 1, lastY = srcHeight - 1
        for y in rows {
            let oy = Double(originY + y)
            var start = 0
            while start < width {
                let n = min(segment, width - start)
                let ox = Double(originX + start)
                // Homogeneous source point of the run's first pixel and its step per pixel.
                let X = m00 * ox + m01 * oy + m02, Y = m10 * ox + m11 * oy + m12, W = m20 * ox + m21 * oy + m22
                // Integer origin near the run's start (clamped into the image).
                let gx = (X / W).rounded(), gy = (Y / W).rounded()
                let bx = gx.isNaN ? 0 : min(max(gx, 0), Double(lastX)), by = gy.isNaN ? 0 : min(max(gy, 0), Double(lastY))
                // Offsets relative to (bx, by): (a0 + a1 t) / (1 + w1 t), (b0 + b1 t) / (1 + w1 t).
                let a0 = (X - bx * W) / W, a1 = (m00 - bx * m20) / W
                let b0 = (Y - by * W) / W, b1 = (m10 - by * m20) / W
                let w1 = m20 / W
                guard a0.isFinite, a1.isFinite, b0.isFinite, b1.isFinite, w1.isFinite else {
                    for i in 0..<n {
                        let x = ox + Double(i)
                        let w = m20 * x + m21 * oy + m22
                        bilinearPixel((m00 * x + m01 * oy + m02) / w, (m10 * x + m11 * oy + m12) / w, out: y * width + start + i)
                    }
                    start += n
                    continue
                }
                let fa0 = Float(a0), fa1 = Float(a1), fb0 = Float(b0), fb1 = Float(b1), fw1 = Float(w1)
                let loX = Float(-bx), hiX = Float(Double(lastX) - bx), loY = Float(-by), hiY = Float(Double(lastY) - by)
                let ibx = Int32(bx), iby = Int32(by)
                var i = 0
                while i < n {
                    let t = lane + Float(i)
                    let r = 1 / (1 + fw1 * t)
                    var sx = (fa0 + fa1 * t) * r
                    var sy = (fb0 + fb1 * t) * r
                    // Clamp to the image (NaN and ±inf included: comparisons with NaN are false).
                    sx.replace(with: loX, where: .!(sx .>= loX))
                    sx.replace(with: hiX, where: sx .> hiX)
                    sy.replace(with: loY, where: .!(sy .>= loY))
                    sy.replace(with: hiY, where: sy .> hiY)
                    let (ix, flx) = WarpJob.floor(sx), (iy, fly) = WarpJob.floor(sy)
                    let fx = sx - flx, fy = sy - fly
                    let x0 = ix &+ ibx, y0 = iy &+ iby
                    // Taps and interpolation per lane in scalar code: Swift lowers integer SIMD
                    // compares and lane insertion to per-lane stack round trips (store-forwarding
                    // stalls), while reading lanes out of a vector is cheap.
                    let out = y * width + start + i
                    let valid = min(8, n - i)
                    for k in 0..<valid {
                        let xk = Int(x0[k]), yk = Int(y0[k])
                        let dx = xk < lastX ? 1 : 0, dy = yk < lastY ? srcWidth : 0
                        let wx = fx[k], wy = fy[k]
                        var q = src + (yk * srcWidth + xk)
                        var d = dst + (out + k)
                        for _ in 0..<planes {
                            let p00 = q[0], p01 = q[dx], p10 = q[dy], p11 = q[dy + dx]
                            let top = p00 + wx * (p01 - p00)
                            let bottom = p10 + wx * (p11 - p10)
                            d.pointee = top + wy * (bottom - top)
                            q += srcPlane
                            d += outPlane
                        }
                    }
                    i += 8
                }
                start += n
            }
        }
    }

    /// ⌊v⌋ as integers and as floats, for |v| < 2^22, with plain SIMD float arithmetic (the
    /// generic SIMD float-to-integer conversions compile to per-lane library calls): adding
    /// 1.5·2^23 rounds to the nearest integer, which then sits in the low mantissa bits.
    @inline(__always)
    static func floor(_ v: SIMD8<Float>) -> (SIMD8<Int32>, SIMD8<Float>) {
        let magic: Float = 12_582_912  // 1.5 * 2^23
        let shifted = v + magic
        var nearest = shifted - magic
        var integer = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let above = nearest .> v
        nearest.replace(with: nearest - 1, where: above)
        integer.replace(with: integer &- 1, where: above)
        return (integer, nearest)
    }

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
                let wx = WarpJob.cubicWeights(Float(sx - Double(x0))), wy = WarpJob.cubicWeights(Float(sy - Double(y0)))
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
