/// Anti-aliased, feathered coverage of a convex quad, from the signed distance to its edges.
///
/// d(p) = min over the four edges of the signed distance from p to the edge's line, positive
/// inside (inside the quad that is the distance to the outline). Coverage ramps linearly from 0
/// at d = −w/2 to 1 at d = +w/2, w = max(feather, 1) pixels: w = 1 is plain anti-aliasing
/// (exact box-filter coverage of an axis-aligned edge), the default 1.5 a slight feather.
/// Pixels with d ≥ w/2 are exactly 1, with d ≤ −w/2 exactly 0.
public struct QuadMask: Sendable {
    public let quad: Quad
    public let feather: Double
    /// Per edge: inward unit normal (nx, ny) and offset c, so that d = nx x + ny y + c.
    let edges: [(nx: Double, ny: Double, c: Double)]

    public init(quad: Quad, feather: Double = 1.5) throws {
        try Homography.checkQuadrilateral(quad.corners, name: "quad",
                                          cornerNames: ["top-left", "top-right", "bottom-right", "bottom-left"])
        self.quad = quad
        self.feather = max(feather.isFinite ? feather : 1, 1)
        let c = quad.corners
        let cx = c.map(\.x).reduce(0, +) / 4, cy = c.map(\.y).reduce(0, +) / 4
        edges = (0..<4).map { i in
            let a = c[i], b = c[(i + 1) % 4]
            let length = a.distance(to: b)
            var nx = -(b.y - a.y) / length, ny = (b.x - a.x) / length
            if nx * (cx - a.x) + ny * (cy - a.y) < 0 { nx = -nx; ny = -ny }
            return (nx, ny, -(nx * a.x + ny * a.y))
        }
    }

    /// Signed distance to the outline (positive inside).
    @inline(__always)
    public func signedDistance(x: Double, y: Double) -> Double {
        var d = Double.infinity
        for e in edges { d = min(d, e.nx * x + e.ny * y + e.c) }
        return d
    }

    @inline(__always)
    public func coverage(x: Double, y: Double) -> Float {
        Float(min(max(0.5 + signedDistance(x: x, y: y) / feather, 0), 1))
    }

    /// Pixel rectangle (x, y, width, height) of `width` × `height` outside of which coverage is 0
    /// (empty when the quad misses the image).
    public func region(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let box = quad.boundingBox, r = feather / 2 + 1
        let x0 = max(0, Int((box.x - r).rounded(.down))), y0 = max(0, Int((box.y - r).rounded(.down)))
        let x1 = min(width, Int((box.x + box.width + r).rounded(.up)) + 1)
        let y1 = min(height, Int((box.y + box.height + r).rounded(.up)) + 1)
        return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))
    }

    /// `photo` with `overlay` (the pixels of `region`, as `region(width:height:)` returns it)
    /// blended in by coverage: out = photo + α (overlay − photo) on RGB; alpha is the photo's.
    public func composite(_ overlay: Image, region: (x: Int, y: Int, width: Int, height: Int), over photo: Image) -> Image {
        precondition(overlay.width == region.width && overlay.height == region.height, "overlay must cover the region")
        var rgb = photo.rgb
        let w = photo.width, h = photo.height, rw = region.width, rh = region.height
        guard rw > 0, rh > 0 else { return photo }
        rgb.withUnsafeMutableBufferPointer { out in
            overlay.rgb.withUnsafeBufferPointer { over in
                let job = UncheckedSendable(value: (out.baseAddress!, over.baseAddress!))
                ParallelFor.ranges(rh, grain: max(1, 4096 / rw)) { rows in
                    let (out, over) = job.value
                    for j in rows {
                        let y = region.y + j
                        for i in 0..<rw {
                            let x = region.x + i
                            let a = coverage(x: Double(x), y: Double(y))
                            if a == 0 { continue }
                            for c in 0..<3 {
                                let o = (c * h + y) * w + x
                                let v = over[(c * rh + j) * rw + i]
                                out[o] = a == 1 ? v : out[o] + a * (v - out[o])
                            }
                        }
                    }
                }
            }
        }
        return Image(width: w, height: h, rgb: rgb, alpha: photo.alpha)
    }
}
