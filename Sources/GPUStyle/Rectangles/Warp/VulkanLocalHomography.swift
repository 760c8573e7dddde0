/// An output → source homography prepared for float arithmetic in a shader (warp_bilinear.glsl).
///
/// A float source coordinate near x = 2000 is only good to ~1e-4 px, so the output origin is
/// folded into the matrix (the shader maps the dispatch-relative pixel (i, j)) and the result is
/// made relative to `base`, an integer source pixel near where the middle of the output lands:
/// the shader then works on offsets of about the output's size. The matrix is also scaled so
/// its denominator is about 1 at the output's centre, which keeps float ranges sane.
struct VulkanLocalHomography {
    let baseX: Int
    let baseY: Int
    /// Row-major 3×3, float: dispatch-relative output pixel → source position − base.
    let matrix: [Float]

    init(_ outputToSource: Homography, sourceWidth: Int, sourceHeight: Int,
         width: Int, height: Int, originX: Int, originY: Int) {
        let centre = outputToSource.apply(Point(x: Double(originX) + Double(width - 1) / 2,
                                                y: Double(originY) + Double(height - 1) / 2))
        func clampedBase(_ v: Double, _ limit: Int) -> Int {
            v.isFinite ? Int(min(max(v.rounded(), 0), Double(limit - 1))) : 0
        }
        baseX = clampedBase(centre.x, sourceWidth)
        baseY = clampedBase(centre.y, sourceHeight)
        let local = Homography.translation(Double(-baseX), Double(-baseY))
            .composed(after: outputToSource.composed(after: .translation(Double(originX), Double(originY))))
        let centreW = local.denominator(at: Point(x: Double(width - 1) / 2, y: Double(height - 1) / 2))
        let scale = centreW.isFinite && centreW != 0 ? 1 / centreW : 1
        matrix = local.matrix.map { Float($0 * scale) }
    }

    /// The push-constant words: baseX, baseY, then the nine matrix entries.
    var words: [UInt32] {
        [UInt32(bitPattern: Int32(truncatingIfNeeded: baseX)), UInt32(bitPattern: Int32(truncatingIfNeeded: baseY))]
            + matrix.map(\.bitPattern)
    }
}
