import Foundation

/// How closely two paths' outputs agree: largest absolute difference and PSNR (signal range 1).
public struct Parity: Sendable {
    public let maxAbsDiff: Float
    public let psnr: Double

    /// Two paths disagree when any value differs by more than this. Each path matches
    /// onnxruntime to 2e-3 on the test photos, and fp32 rounding through the residual blocks
    /// reaches 2.4e-3 between paths at 1920x1080; 1e-2 (2.5 steps of an 8-bit output) is far
    /// above that, and far below what a wrong kernel produces.
    public static let tolerance: Float = 1e-2

    public init(_ a: Image, _ b: Image) {
        precondition(a.rgb.count == b.rgb.count, "comparing images of different sizes")
        var maxDiff: Float = 0, squares = 0.0
        for (x, y) in zip(a.rgb, b.rgb) {
            let d = abs(x - y)
            // NaN or infinity anywhere is total disagreement (max() would skip a NaN).
            guard d.isFinite else { maxDiff = .infinity; squares = .infinity; break }
            maxDiff = max(maxDiff, d)
            squares += Double(d * d)
        }
        maxAbsDiff = maxDiff
        let mse = squares / Double(max(a.rgb.count, 1))
        psnr = mse == 0 ? .infinity : 10 * log10(1 / mse)
    }

    public var agrees: Bool { maxAbsDiff <= Parity.tolerance }
}
