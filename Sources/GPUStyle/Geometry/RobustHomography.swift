import Foundation

/// A homography from point pairs of which some are wrong: RANSAC (Fischler and Bolles, 1981)
/// over 4-pair samples scored by MSAC's truncated squared error (Torr and Zisserman, "MLESAC",
/// 2000), then least-squares refits (`Homography.leastSquares`) on the inliers.
enum RobustHomography {
    struct Settings {
        /// A pair is an inlier when the fitted mapping puts its source within this distance of
        /// its destination (destination units).
        var threshold: Double
        /// Samples drawn at most.
        var maximumIterations: Int
        /// Probability of having drawn at least one all-inlier sample when sampling stops early.
        var confidence = 0.999
    }

    struct Fit {
        var homography: Homography
        /// One flag per pair.
        var inliers: [Bool]
        var inlierCount: Int
    }

    /// Nil when fewer than four pairs are given or no sample gives a usable mapping.
    static func fit(from source: [Point], to destination: [Point], settings: Settings,
                    random: inout SeededRandom) -> Fit? {
        precondition(source.count == destination.count, "one destination per source point")
        let n = source.count
        guard n >= 4,
              let ts = Homography.similarityNormalization(source),
              let td = Homography.similarityNormalization(destination) else { return nil }
        // Samples are solved in normalised coordinates, where h22 = 1 is safe (the centroid of
        // the data stays in front of the camera) and the 8 × 8 system is well conditioned.
        let p = source.map { ts.apply($0) }, q = destination.map { td.apply($0) }
        let scale = td.matrix[0]
        let t2 = (settings.threshold * scale) * (settings.threshold * scale)

        var best: [Double]? = nil
        var bestCost = Double.infinity, bestCount = 0
        var needed = settings.maximumIterations
        var iteration = 0
        var sample = [0, 0, 0, 0]
        while iteration < needed {
            iteration += 1
            for k in 0..<4 {
                var i: Int
                repeat { i = random.index(below: n) } while sample[0..<k].contains(i)
                sample[k] = i
            }
            let a = sample.map { p[$0] }, b = sample.map { q[$0] }
            guard consistentOrientation(a, b), let h = solveMinimal(a, b) else { continue }
            var cost = 0.0, count = 0
            for i in 0..<n {
                let e = squaredError(h, p[i], q[i])
                if e < t2 { cost += e; count += 1 } else { cost += t2 }
            }
            if cost < bestCost {
                bestCost = cost
                bestCount = count
                best = h
                // Samples needed so that one of them is all inliers with `confidence`, given
                // the best inlier share so far.
                let w = Double(count) / Double(n)
                let miss = 1 - w * w * w * w
                if miss <= 0 {
                    needed = iteration
                } else if miss < 1 {
                    let k = log(1 - settings.confidence) / log(miss)
                    needed = min(needed, Int(k.rounded(.up)))
                }
            }
        }
        guard let h = best, bestCount >= 4 else { return nil }
        let sampled = td.inverse.composed(after: Homography(matrix: h + [1]).composed(after: ts))
        return refit(sampled, from: source, to: destination, threshold: settings.threshold)
    }

    /// Least-squares refits of `start` on its inliers within `threshold`: the inliers of the
    /// refit are selected again and refitted, until they stop changing (three rounds at most).
    /// A 4-pair sample's mapping is exact on its four pairs only, so its inlier set is a little
    /// off near the threshold; the refit averages all of them. Nil with fewer than 4 inliers.
    static func refit(_ start: Homography, from source: [Point], to destination: [Point], threshold: Double) -> Fit? {
        var inliers = flags(start, source, destination, threshold)
        var result = start
        for _ in 0..<3 {
            let chosen = (0..<source.count).filter { inliers[$0] }
            guard chosen.count >= 4,
                  let refit = Homography.leastSquares(from: chosen.map { source[$0] }, to: chosen.map { destination[$0] })
            else { break }
            let next = flags(refit, source, destination, threshold)
            guard next.filter({ $0 }).count >= 4 else { break }
            result = refit
            if next == inliers { break }
            inliers = next
        }
        let count = inliers.filter { $0 }.count
        return count >= 4 ? Fit(homography: result, inliers: inliers, inlierCount: count) : nil
    }

    /// Transfer error squared, infinite behind the horizon.
    @inline(__always)
    private static func squaredError(_ h: [Double], _ p: Point, _ q: Point) -> Double {
        let w = h[6] * p.x + h[7] * p.y + 1
        guard w > 0 else { return .infinity }
        let x = (h[0] * p.x + h[1] * p.y + h[2]) / w - q.x
        let y = (h[3] * p.x + h[4] * p.y + h[5]) / w - q.y
        return x * x + y * y
    }

    private static func flags(_ h: Homography, _ source: [Point], _ destination: [Point], _ threshold: Double) -> [Bool] {
        let t2 = threshold * threshold
        return zip(source, destination).map { s, d in
            guard h.denominator(at: s) > 0 else { return false }
            let m = h.apply(s)
            let dx = m.x - d.x, dy = m.y - d.y
            return dx * dx + dy * dy < t2
        }
    }

    /// A sample can only come from a frame-to-frame motion if every triangle of it keeps its
    /// orientation (a homography that keeps the data in front of the camera cannot mirror it)
    /// and none is nearly flat (three nearly collinear points leave the mapping undetermined).
    private static func consistentOrientation(_ a: [Point], _ b: [Point]) -> Bool {
        for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
            let ca = cross(a[i], a[j], a[k]), cb = cross(b[i], b[j], b[k])
            // Normalised coordinates are O(1): 1e-3 is a triangle a thousandth of the data's size.
            guard abs(ca) > 1e-3, abs(cb) > 1e-3, (ca > 0) == (cb > 0) else { return false }
        }
        return true
    }

    private static func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// The mapping through four pairs with h22 = 1: the 8 × 8 DLT system solved by Gaussian
    /// elimination with partial pivoting. Returns h00 … h21 (8 values), nil when singular.
    private static func solveMinimal(_ s: [Point], _ d: [Point]) -> [Double]? {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 72) { buffer -> [Double]? in
            let a = buffer.baseAddress!
            for i in 0..<4 {
                let x = s[i].x, y = s[i].y, u = d[i].x, v = d[i].y
                let r0 = a + 18 * i, r1 = r0 + 9
                r0[0] = x; r0[1] = y; r0[2] = 1; r0[3] = 0; r0[4] = 0; r0[5] = 0
                r0[6] = -u * x; r0[7] = -u * y; r0[8] = u
                r1[0] = 0; r1[1] = 0; r1[2] = 0; r1[3] = x; r1[4] = y; r1[5] = 1
                r1[6] = -v * x; r1[7] = -v * y; r1[8] = v
            }
            for c in 0..<8 {
                var pivot = c
                for r in (c + 1)..<8 where abs(a[r * 9 + c]) > abs(a[pivot * 9 + c]) { pivot = r }
                if pivot != c { for k in 0..<9 { swap(&a[c * 9 + k], &a[pivot * 9 + k]) } }
                let d = a[c * 9 + c]
                // Normalised entries are O(1): a pivot this small means a singular sample.
                guard abs(d) > 1e-9 else { return nil }
                for r in (c + 1)..<8 {
                    let f = a[r * 9 + c] / d
                    if f == 0 { continue }
                    for k in c..<9 { a[r * 9 + k] -= f * a[c * 9 + k] }
                }
            }
            var h = [Double](repeating: 0, count: 8)
            for r in stride(from: 7, through: 0, by: -1) {
                var sum = a[r * 9 + 8]
                for k in (r + 1)..<8 { sum -= a[r * 9 + k] * h[k] }
                h[r] = sum / a[r * 9 + r]
            }
            return h.allSatisfy(\.isFinite) ? h : nil
        }
    }
}
