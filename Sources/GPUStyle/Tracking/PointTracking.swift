/// Pyramidal Lucas-Kanade point tracking between two `GrayPyramid`s (the method of J.-Y. Bouguet,
/// "Pyramidal Implementation of the Lucas Kanade Feature Tracker", Intel, 2000): per level,
/// coarse to fine, a translation of a square window is refined by Newton steps
/// η = G⁻¹ Σ ∇T (T − J), where T is the window in the first image, J the displaced window in the
/// second and G = Σ ∇T ∇Tᵀ; the displacement found at one level, doubled, starts the next.
///
/// All positions are level-0 (working) coordinates of the pyramids.
struct LucasKanade {
    /// The window is (2 r + 1)² pixels.
    var windowRadius = 4
    /// Newton steps per level at most.
    var maximumIterations = 10
    /// A level is done when a step is shorter than this (level pixels).
    var epsilon: Float = 0.02
    /// Smallest eigenvalue of G per window pixel below which the window is flat or a straight
    /// edge and its displacement is undetermined (intensity² per pixel², intensities in [0, 1]).
    var minimumEigenvalue: Float = 1e-6

    struct Track {
        var position: Point
        /// Zero-mean normalised cross-correlation of the two level-0 windows at the end.
        var correlation: Float
    }

    /// Tracks `point` (in `from`) into `to`, starting at `point + guess`. Nil when the window is
    /// too flat, the iteration leaves the image or does not settle.
    func track(_ point: Point, guess: Point, from: GrayPyramid, to: GrayPyramid) -> Track? {
        let r = windowRadius, m = 2 * r + 3
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: m * m + 4 * m * m) { buffer in
            let patch = buffer.baseAddress!, work = patch + m * m
            let levelCount = min(from.levels.count, to.levels.count)
            // Scale the guess to the coarsest level; each level doubles what it found.
            let top = Float(1 << (levelCount - 1))
            var dx = Float(guess.x) / top, dy = Float(guess.y) / top
            for level in stride(from: levelCount - 1, through: 0, by: -1) {
                let a = from.levels[level], b = to.levels[level]
                let s = 1 / Float(1 << level)
                // x(L) = (x(0) + 0.5) / 2^L − 0.5 under the box pyramid's centre convention.
                let px = (Float(point.x) + 0.5) * s - 0.5, py = (Float(point.y) + 0.5) * s - 0.5
                a.pixels.withUnsafeBufferPointer { Self.sample($0.baseAddress!, a.width, a.height, px, py, r + 1, patch) }
                guard let found = solve(template: patch, at: px, py, in: b, from: dx, dy, final: level == 0, work: work) else {
                    return nil
                }
                if level > 0 {
                    dx = 2 * found.dx
                    dy = 2 * found.dy
                } else {
                    return Track(position: Point(x: point.x + Double(found.dx), y: point.y + Double(found.dy)),
                                 correlation: found.correlation)
                }
            }
            return nil
        }
    }

    /// Finds `predicted` + d in `plane` (level 0) whose window matches the window of `key`
    /// around `keyPoint` seen through `toKey`, the local linear map (a b; c d) from offsets in
    /// `plane` to offsets in `key`. With `toKey` from the current estimate of the key → frame
    /// homography, the template is the key frame's own appearance, rotated, scaled and sheared
    /// into this frame: nothing is carried over from frame to frame, so errors cannot pile up.
    /// Nil when the window is flat, the iteration does not settle or moves more than `reach`.
    func align(keyPoint: Point, in key: GrayPlane, toKey: (a: Double, b: Double, c: Double, d: Double),
               predicted: Point, in plane: GrayPlane, reach: Float) -> Track? {
        let r = windowRadius, m = 2 * r + 3
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: m * m + 4 * m * m) { buffer in
            let patch = buffer.baseAddress!, work = patch + m * m
            key.pixels.withUnsafeBufferPointer { Self.sampleWarped($0.baseAddress!, key.width, key.height, keyPoint, toKey, r + 1, patch) }
            let px = Float(predicted.x), py = Float(predicted.y)
            guard let found = solve(template: patch, at: px, py, in: plane, from: 0, 0, final: true, work: work),
                  found.dx * found.dx + found.dy * found.dy <= reach * reach else { return nil }
            return Track(position: Point(x: predicted.x + Double(found.dx), y: predicted.y + Double(found.dy)),
                         correlation: found.correlation)
        }
    }

    /// Newton iterations of one level: the displacement d, starting from (dx, dy), that moves
    /// the window of `plane` around (px + d) onto `template` ((2r + 3)² values: the window and a
    /// one-pixel rim for the central differences). With `final`, the iteration must settle, the
    /// window must lie inside the plane and the correlation is measured.
    /// `work` holds 4 (2r + 1)² floats.
    private func solve(template patch: UnsafeMutablePointer<Float>, at px: Float, _ py: Float, in plane: GrayPlane,
                       from startX: Float, _ startY: Float, final: Bool,
                       work: UnsafeMutablePointer<Float>) -> (dx: Float, dy: Float, correlation: Float)? {
        let r = windowRadius, n = 2 * r + 1, m = n + 2
        let gx = work, gy = gx + n * n, t = gy + n * n, j = t + n * n
        var gxx: Float = 0, gxy: Float = 0, gyy: Float = 0
        for row in 0..<n {
            for col in 0..<n {
                let c = (row + 1) * m + col + 1, k = row * n + col
                let ix = 0.5 * (patch[c + 1] - patch[c - 1]), iy = 0.5 * (patch[c + m] - patch[c - m])
                gx[k] = ix; gy[k] = iy; t[k] = patch[c]
                gxx += ix * ix; gxy += ix * iy; gyy += iy * iy
            }
        }
        let half = 0.5 * (gxx + gyy), diff = 0.5 * (gxx - gyy)
        let smallest = half - (diff * diff + gxy * gxy).squareRoot()
        let det = gxx * gyy - gxy * gxy
        guard smallest >= minimumEigenvalue * Float(n * n), det > 0 else { return nil }
        let i00 = gyy / det, i01 = -gxy / det, i11 = gxx / det
        // Both windows are compared with their means removed: a change of exposure between the
        // frames would otherwise read as motion (Σ (T − J) ∇T with J = T + c is c Σ ∇T, not 0).
        // Removing a contrast (gain) change as well was tried: on the test videos it cost more
        // accuracy without exposure changes than it won with them.
        var tSum: Float = 0
        for k in 0..<(n * n) { tSum += t[k] }
        let tMean = tSum / Float(n * n)
        for k in 0..<(n * n) { t[k] -= tMean }
        var dx = startX, dy = startY
        var converged = false
        return plane.pixels.withUnsafeBufferPointer { pixels -> (dx: Float, dy: Float, correlation: Float)? in
            let b = pixels.baseAddress!
            for _ in 0..<maximumIterations {
                let qx = px + dx, qy = py + dy
                // Far outside the level the window only sees clamped border pixels.
                guard qx > -Float(r), qy > -Float(r), qx < Float(plane.width + r), qy < Float(plane.height + r) else { return nil }
                Self.sample(b, plane.width, plane.height, qx, qy, r, j)
                var jSum: Float = 0
                for k in 0..<(n * n) { jSum += j[k] }
                let jMean = jSum / Float(n * n)
                var bx: Float = 0, by: Float = 0
                for k in 0..<(n * n) {
                    let e = t[k] - (j[k] - jMean)
                    bx += e * gx[k]; by += e * gy[k]
                }
                let ex = i00 * bx + i01 * by, ey = i01 * bx + i11 * by
                guard ex.isFinite, ey.isFinite else { return nil }
                dx += ex
                dy += ey
                if ex * ex + ey * ey < epsilon * epsilon { converged = true; break }
            }
            guard final else { return (dx, dy, 0) }
            // An oscillating window (typically one straddling two motions) has no answer.
            guard converged else { return nil }
            let qx = px + dx, qy = py + dy
            // Level 0 must hold the whole window: clamped borders bias the result.
            guard qx >= Float(r), qy >= Float(r), qx <= Float(plane.width - 2 - r), qy <= Float(plane.height - 2 - r) else { return nil }
            Self.sample(b, plane.width, plane.height, qx, qy, r, j)
            return (dx, dy, Self.zncc(t, j, n * n))
        }
    }

    /// The (2 radius + 1)² window of `plane` around `centre`, with window offset (u, v) read at
    /// centre + (a u + b v, c u + d v), bilinear, borders clamped.
    static func sampleWarped(_ plane: UnsafePointer<Float>, _ width: Int, _ height: Int, _ centre: Point,
                             _ map: (a: Double, b: Double, c: Double, d: Double), _ radius: Int,
                             _ out: UnsafeMutablePointer<Float>) {
        let n = 2 * radius + 1
        let cx = Float(centre.x), cy = Float(centre.y)
        let a = Float(map.a), b = Float(map.b), c = Float(map.c), d = Float(map.d)
        for row in 0..<n {
            let v = Float(row - radius)
            for col in 0..<n {
                let u = Float(col - radius)
                let x = min(max(cx + a * u + b * v, 0), Float(width - 1))
                let y = min(max(cy + c * u + d * v, 0), Float(height - 1))
                let x0 = min(Int(x), width - 2), y0 = min(Int(y), height - 2)
                let fx = x - Float(x0), fy = y - Float(y0)
                let p = plane + y0 * width + x0
                let top = p[0] + fx * (p[1] - p[0]), bottom = p[width] + fx * (p[width + 1] - p[width])
                out[row * n + col] = top + fy * (bottom - top)
            }
        }
    }

    /// The (2 radius + 1)² window centred on (cx, cy), bilinear, rows first. The fractional
    /// offset is the same for every window pixel, so the four weights are computed once;
    /// pixels outside the plane read the nearest border pixel.
    @inline(__always)
    static func sample(_ plane: UnsafePointer<Float>, _ width: Int, _ height: Int, _ cx: Float, _ cy: Float,
                       _ radius: Int, _ out: UnsafeMutablePointer<Float>) {
        let fx0 = cx.rounded(.down), fy0 = cy.rounded(.down)
        let fx = cx - fx0, fy = cy - fy0
        let x0 = Int(fx0), y0 = Int(fy0)
        let w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy
        let n = 2 * radius + 1
        if x0 - radius >= 0, y0 - radius >= 0, x0 + radius + 1 < width, y0 + radius + 1 < height {
            for row in 0..<n {
                let a = plane + (y0 - radius + row) * width + (x0 - radius), b = a + width
                let o = out + row * n
                for col in 0..<n {
                    o[col] = w00 * a[col] + w10 * a[col + 1] + w01 * b[col] + w11 * b[col + 1]
                }
            }
            return
        }
        for row in 0..<n {
            let ya = min(max(y0 - radius + row, 0), height - 1), yb = min(max(y0 - radius + row + 1, 0), height - 1)
            for col in 0..<n {
                let xa = min(max(x0 - radius + col, 0), width - 1), xb = min(max(x0 - radius + col + 1, 0), width - 1)
                out[row * n + col] = w00 * plane[ya * width + xa] + w10 * plane[ya * width + xb]
                    + w01 * plane[yb * width + xa] + w11 * plane[yb * width + xb]
            }
        }
    }

    /// Zero-mean normalised cross-correlation: insensitive to the gain and offset changes of
    /// auto-exposure, low when the window now shows something else.
    static func zncc(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
        var sa: Float = 0, sb: Float = 0
        for k in 0..<count { sa += a[k]; sb += b[k] }
        let ma = sa / Float(count), mb = sb / Float(count)
        var ab: Float = 0, aa: Float = 0, bb: Float = 0
        for k in 0..<count {
            let u = a[k] - ma, v = b[k] - mb
            ab += u * v; aa += u * u; bb += v * v
        }
        let d = (aa * bb).squareRoot()
        return d > 0 ? ab / d : 0
    }
}

/// Tracks a set of points forward and back and keeps those that return where they started.
enum PointTracking {
    struct Limits {
        /// Largest distance (working pixels) between a point and its forward-then-backward track.
        var forwardBackward: Double
        /// Smallest correlation of the forward track's windows.
        var correlation: Float
    }

    /// For each point of `points` (working coordinates in `from`), its position in `to`, or nil
    /// when it was lost. A forward track that does not come back to its start (Kalal, Mikolajczyk
    /// and Matas, "Forward-Backward Error: Automatic Detection of Tracking Failures", ICPR 2010)
    /// slid along an edge, jumped to a look-alike or followed an occluder: drop it.
    static func track(_ points: [Point], from: GrayPyramid, to: GrayPyramid, lk: LucasKanade,
                      limits: Limits) -> [Point?] {
        points.map { p in
            guard let forward = lk.track(p, guess: Point(x: 0, y: 0), from: from, to: to),
                  forward.correlation >= limits.correlation else { return nil }
            let q = forward.position
            guard let backward = lk.track(q, guess: p - q, from: to, to: from),
                  backward.position.distance(to: p) <= limits.forwardBackward else { return nil }
            return q
        }
    }
}

extension PointTracking {
    /// For each key point, its position in `plane` found by `LucasKanade.align` from where
    /// `keyToPlane` (working coordinates) puts it, or nil when that failed or the windows no
    /// longer correlate by `correlation`.
    static func align(_ keyPoints: [Point], in key: GrayPlane, keyToPlane: Homography, plane: GrayPlane,
                      lk: LucasKanade, reach: Float, correlation: Float) -> [Point?] {
        let inverse = keyToPlane.inverse.matrix
        return keyPoints.map { k in
            let q = keyToPlane.apply(k)
            // Jacobian of plane → key at q: the key frame's offsets for this frame's window.
            let w = inverse[6] * q.x + inverse[7] * q.y + inverse[8]
            guard w > 0, q.x.isFinite, q.y.isFinite else { return nil }
            let a = (inverse[0] - k.x * inverse[6]) / w, b = (inverse[1] - k.x * inverse[7]) / w
            let c = (inverse[3] - k.y * inverse[6]) / w, d = (inverse[4] - k.y * inverse[7]) / w
            guard let found = lk.align(keyPoint: k, in: key, toKey: (a, b, c, d), predicted: q, in: plane, reach: reach),
                  found.correlation >= correlation else { return nil }
            return found.position
        }
    }
}
