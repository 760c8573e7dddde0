/// Points worth tracking inside a quad: Shi and Tomasi's criterion ("Good Features to Track",
/// CVPR 1994): the smaller eigenvalue of the window's gradient matrix G = Σ ∇I ∇Iᵀ, the very
/// matrix Lucas-Kanade inverts, so a large value means a window whose displacement is well
/// determined in both directions.
///
/// Two regions of the quad are searched separately, each spread over a grid (one candidate per
/// cell) so that the points cover the picture rather than crowd its busiest corner:
/// - the interior, inset so the windows see only the picture;
/// - a thin band just inside the outline, whose windows see the frame, the matte and the
///   corners: a plain picture has little texture anywhere else, and points near the outline
///   pin its perspective down best.
enum GoodFeatures {
    struct Settings {
        /// Tracking window radius (working pixels); the score uses the same window.
        var windowRadius: Int
        var maximumCount: Int
        /// Share of `maximumCount` reserved for the band (more when the interior has too few).
        var bandShare: Double
        /// A candidate must score at least this fraction of the best one of its region.
        var qualityLevel: Float
        /// Absolute floor on the score, per window pixel (intensity² per pixel²).
        var minimumEigenvalue: Float
    }

    /// Points (working coordinates of `plane`) inside `quad` (same coordinates): the band's
    /// share first, then the interior's, then more of the band if the interior ran short;
    /// best first within each.
    static func select(in plane: GrayPlane, quad: Quad, settings: Settings) -> [Point] {
        let r = settings.windowRadius
        let box = quad.boundingBox
        // Centres where the whole window and its central differences stay inside the plane.
        let x0 = max(r + 1, Int(box.x.rounded(.up))), y0 = max(r + 1, Int(box.y.rounded(.up)))
        let x1 = min(plane.width - r - 2, Int((box.x + box.width).rounded(.down)))
        let y1 = min(plane.height - r - 2, Int((box.y + box.height).rounded(.down)))
        guard x1 >= x0, y1 >= y0, settings.maximumCount > 0, quad.area > 0 else { return [] }
        let rw = x1 - x0 + 1, rh = y1 - y0 + 1
        let scores = minimumEigenvalues(plane, x0: x0, y0: y0, width: rw, height: rh, radius: r)

        let edges = inwardEdges(quad)
        // The band: about a frame moulding's width (6% of the quad's size), and at least wide
        // enough that the interior's windows stay a pixel clear of the outline.
        let band = max(Double(r + 2), 0.06 * quad.area.squareRoot())
        // About `maximumCount` cells over the quad, each one window or larger.
        let cell = max(r + 1, Int((quad.area / Double(settings.maximumCount)).squareRoot()))
        let columns = (rw + cell - 1) / cell, rows = (rh + cell - 1) / cell
        // Per cell and region (0 band, 1 interior): the best pixel's score and position.
        var bestScore = [Float](repeating: 0, count: 2 * columns * rows)
        var bestAt = [Int](repeating: -1, count: 2 * columns * rows)
        var top: [Float] = [0, 0]
        for j in 0..<rh {
            let y = Double(y0 + j)
            for i in 0..<rw {
                let x = Double(x0 + i)
                var d = Double.infinity
                for e in edges { d = min(d, e.nx * x + e.ny * y + e.c) }
                // A window centred on the outline itself is half background.
                guard d >= 1 else { continue }
                let region = d < band ? 0 : 1
                let s = scores[j * rw + i]
                let k = 2 * ((j / cell) * columns + i / cell) + region
                if s > bestScore[k] {
                    bestScore[k] = s
                    bestAt[k] = j * rw + i
                }
                top[region] = max(top[region], s)
            }
        }
        var candidates: [[(score: Float, point: Point)]] = [[], []]
        for k in 0..<bestAt.count where bestAt[k] >= 0 {
            let region = k % 2
            let s = bestScore[k]
            guard s >= settings.minimumEigenvalue, s >= settings.qualityLevel * top[region] else { continue }
            let at = bestAt[k]
            candidates[region].append((s, Point(x: Double(x0 + at % rw), y: Double(y0 + at / rw))))
        }
        for region in 0..<2 { candidates[region].sort { $0.score > $1.score } }

        // Neighbouring cells can both pick pixels next to their shared side; nearly the same
        // window twice adds no information.
        let spacing = Double(r + 1)
        var picked: [Point] = []
        var taken = [[Bool](repeating: false, count: candidates[0].count), [Bool](repeating: false, count: candidates[1].count)]
        func take(_ region: Int, upTo limit: Int) {
            for (index, c) in candidates[region].enumerated() where !taken[region][index] {
                if picked.count >= limit { return }
                if picked.contains(where: { $0.distance(to: c.point) < spacing }) { continue }
                taken[region][index] = true
                picked.append(c.point)
            }
        }
        let bandQuota = Int((settings.bandShare * Double(settings.maximumCount)).rounded())
        take(0, upTo: bandQuota)
        take(1, upTo: settings.maximumCount)
        take(0, upTo: settings.maximumCount)
        return picked
    }

    /// Per edge: inward unit normal and offset, so that n · p + c is the signed distance to the
    /// edge's line, positive inside (the quad is convex).
    static func inwardEdges(_ quad: Quad) -> [(nx: Double, ny: Double, c: Double)] {
        let c = quad.corners
        let cx = c.map(\.x).reduce(0, +) / 4, cy = c.map(\.y).reduce(0, +) / 4
        return (0..<4).map { i in
            let a = c[i], b = c[(i + 1) % 4]
            let length = max(a.distance(to: b), 1e-12)
            var nx = -(b.y - a.y) / length, ny = (b.x - a.x) / length
            if nx * (cx - a.x) + ny * (cy - a.y) < 0 { nx = -nx; ny = -ny }
            return (nx, ny, -(nx * a.x + ny * a.y))
        }
    }

    /// The smaller eigenvalue of G over the (2r+1)² window, per window pixel, for the centres
    /// x0..<x0+width, y0..<y0+height (central differences, so the plane must extend r + 1
    /// beyond them). Window sums are running sums along columns, then along rows.
    static func minimumEigenvalues(_ plane: GrayPlane, x0: Int, y0: Int, width: Int, height: Int, radius r: Int) -> [Float] {
        let ew = width + 2 * r, eh = height + 2 * r
        let ex = x0 - r, ey = y0 - r
        var xx = [Float](repeating: 0, count: ew * eh), xy = xx, yy = xx
        plane.pixels.withUnsafeBufferPointer { src in
            let pw = plane.width
            for j in 0..<eh {
                let row = src.baseAddress! + (ey + j) * pw + ex
                for i in 0..<ew {
                    let gx = 0.5 * (row[i + 1] - row[i - 1]), gy = 0.5 * (row[i + pw] - row[i - pw])
                    xx[j * ew + i] = gx * gx
                    xy[j * ew + i] = gx * gy
                    yy[j * ew + i] = gy * gy
                }
            }
        }
        let n = 2 * r + 1
        func boxSums(_ a: [Float]) -> [Float] {
            // Columns: window of n rows, for each of the `height` output rows.
            var vertical = [Float](repeating: 0, count: ew * height)
            for i in 0..<ew {
                var s: Float = 0
                for j in 0..<n { s += a[j * ew + i] }
                vertical[i] = s
                for j in 1..<max(height, 1) {
                    s += a[(j + n - 1) * ew + i] - a[(j - 1) * ew + i]
                    vertical[j * ew + i] = s
                }
            }
            var out = [Float](repeating: 0, count: width * height)
            for j in 0..<height {
                var s: Float = 0
                for i in 0..<n { s += vertical[j * ew + i] }
                out[j * width] = s
                for i in 1..<max(width, 1) {
                    s += vertical[j * ew + i + n - 1] - vertical[j * ew + i - 1]
                    out[j * width + i] = s
                }
            }
            return out
        }
        let sxx = boxSums(xx), sxy = boxSums(xy), syy = boxSums(yy)
        let perPixel = 1 / Float(n * n)
        return (0..<(width * height)).map { k in
            let a = sxx[k], b = sxy[k], c = syy[k]
            let half = 0.5 * (a + c), diff = 0.5 * (a - c)
            return max(0, half - (diff * diff + b * b).squareRoot()) * perPixel
        }
    }
}
