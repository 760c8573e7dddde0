import CKernels
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

/// The CPU kernel: rows in parallel; bilinear in C (`gs_warp_bilinear_rows`, AVX2+FMA when the
/// CPU has it), bicubic in Swift (`BicubicWarpJob`).
///
/// Precision: a Float source coordinate near x = 2000 is only good to ~1e-4 px. So each run of
/// 32 output pixels gets, in Double, an integer source origin near where it lands and the
/// homography re-expressed relative to that origin and the run's first pixel; the per-pixel
/// Float arithmetic then works on offsets of a few tens of pixels (error ~1e-6 px).
public final class CPUPerspectiveWarper: PerspectiveWarper {
    public init() {}

    public var name: String { "cpu (\(ParallelFor.workers) thread\(ParallelFor.workers == 1 ? "" : "s"))" }

    public func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
                     originX: Int = 0, originY: Int = 0, interpolation: WarpInterpolation = .bilinear) throws -> Image {
        precondition(width >= 0 && height >= 0, "negative output size")
        precondition(source.width > 0 && source.height > 0, "empty source image")
        // The C kernel takes 32-bit sizes, indexes a source plane with 32-bit offsets and floors
        // source coordinates below 2^22 in float.
        let int32 = Int(Int32.max)
        precondition(source.width < 1 << 22 && source.height < 1 << 22 && source.width * source.height <= int32
                     && width <= int32 && height <= int32
                     && abs(originX) <= int32 && abs(originY) <= int32, "warp too large for the CPU kernel")
        let planes = source.alpha == nil ? 3 : 4
        let count = width * height
        // Every element is written by the kernel: skip zero-filling (a 1024x768 result is 9 MB).
        var output = [Float](unsafeUninitializedCapacity: planes * count) { _, initialized in initialized = planes * count }
        var sourcePlanes = source.rgb
        if let alpha = source.alpha { sourcePlanes += alpha }
        let m = outputToSource.matrix
        // Rows per task: enough work to amortise waking a worker.
        let grain = max(1, 16384 / max(width, 1))
        sourcePlanes.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                switch interpolation {
                case .bilinear:
                    m.withUnsafeBufferPointer { m in
                        ParallelFor.ranges(height, grain: grain) { rows in
                            gs_warp_bilinear_rows(src.baseAddress, Int32(source.width), Int32(source.height),
                                                  Int32(planes), m.baseAddress, Int32(originX), Int32(originY),
                                                  dst.baseAddress, Int32(width), Int32(height),
                                                  Int32(rows.lowerBound), Int32(rows.upperBound))
                        }
                    }
                case .bicubic:
                    let job = BicubicWarpJob(src: src.baseAddress!, srcWidth: source.width, srcHeight: source.height,
                                             dst: dst.baseAddress!, width: width, height: height, planes: planes,
                                             m: m, originX: originX, originY: originY)
                    ParallelFor.ranges(height, grain: grain) { rows in job.bicubicRows(rows) }
                }
            }
        }
        let rgb = planes == 3 ? output : Array(output[0..<(3 * count)])
        let alpha = planes == 4 ? Array(output[(3 * count)...]) : nil
        return Image(width: width, height: height, rgb: rgb, alpha: alpha)
    }
}
