extension Homography {
    /// The least-squares homography taking `source[i]` towards `destination[i]` for N ≥ 4 pairs:
    /// the normalised direct linear transform (Hartley and Zisserman, "Multiple View Geometry",
    /// 2nd ed., algorithm 4.2). Each set is moved to its centroid and scaled to mean distance √2,
    /// each pair gives two rows of A h = 0, and h is the unit vector minimising |A h|: the
    /// eigenvector of AᵀA (9 × 9) with the smallest eigenvalue.
    ///
    /// The error minimised is algebraic, not geometric; after normalisation the two agree closely
    /// when the pairs are close to consistent, which is what a robust fit hands in.
    /// Nil for fewer than four pairs, non-finite input, or a degenerate configuration (the
    /// minimiser is not unique, e.g. all source points on one line).
    static func leastSquares(from source: [Point], to destination: [Point]) -> Homography? {
        precondition(source.count == destination.count, "one destination per source point")
        guard source.count >= 4,
              source.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
              destination.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        guard let ts = similarityNormalization(source), let td = similarityNormalization(destination) else { return nil }
        // Accumulate AᵀA directly: 9 × 9 regardless of N.
        var ata = [Double](repeating: 0, count: 81)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 18) { rows in
            let r0 = rows.baseAddress!, r1 = r0 + 9
            for i in 0..<source.count {
                let p = ts.apply(source[i]), q = td.apply(destination[i])
                let x = p.x, y = p.y, u = q.x, v = q.y
                // x' × (H x) = 0, two independent rows: h·[x y 1 0 0 0 −ux −uy −u] and
                // h·[0 0 0 x y 1 −vx −vy −v].
                r0[0] = x; r0[1] = y; r0[2] = 1; r0[3] = 0; r0[4] = 0; r0[5] = 0
                r0[6] = -u * x; r0[7] = -u * y; r0[8] = -u
                r1[0] = 0; r1[1] = 0; r1[2] = 0; r1[3] = x; r1[4] = y; r1[5] = 1
                r1[6] = -v * x; r1[7] = -v * y; r1[8] = -v
                for a in 0..<9 {
                    let ra = r0[a], sa = r1[a]
                    for b in a..<9 { ata[a * 9 + b] += ra * r0[b] + sa * r1[b] }
                }
            }
        }
        for a in 0..<9 { for b in 0..<a { ata[a * 9 + b] = ata[b * 9 + a] } }
        let (values, vectors) = SymmetricEigen.decompose(ata, size: 9)
        // Two (near) null directions: the data do not pin the mapping down.
        guard values[8] > 0, values[1] > 1e-10 * values[8] else { return nil }
        let normalized = vectors[0]
        guard normalized.contains(where: { $0 != 0 }) else { return nil }
        let h = td.inverse.composed(after: Homography(matrix: normalized).composed(after: ts))
        return h.matrix.allSatisfy(\.isFinite) ? h : nil
    }

    /// The least-squares affine mapping (last row 0 0 1) taking `source[i]` towards
    /// `destination[i]`: both sets moved to their centroids, the 2 × 2 part solved from the
    /// normal equations (geometric error, exactly). Nil for fewer than three pairs, non-finite
    /// input, or sources on one line.
    static func affineLeastSquares(from source: [Point], to destination: [Point]) -> Homography? {
        precondition(source.count == destination.count, "one destination per source point")
        let n = Double(source.count)
        guard source.count >= 3, source.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
              destination.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let sx = source.reduce(0) { $0 + $1.x } / n, sy = source.reduce(0) { $0 + $1.y } / n
        let dx = destination.reduce(0) { $0 + $1.x } / n, dy = destination.reduce(0) { $0 + $1.y } / n
        var xx = 0.0, xy = 0.0, yy = 0.0, ux = 0.0, uy = 0.0, vx = 0.0, vy = 0.0
        for (p, q) in zip(source, destination) {
            let x = p.x - sx, y = p.y - sy, u = q.x - dx, v = q.y - dy
            xx += x * x; xy += x * y; yy += y * y
            ux += u * x; uy += u * y; vx += v * x; vy += v * y
        }
        let det = xx * yy - xy * xy
        guard det > 1e-12 * max(xx * yy, 1e-300) else { return nil }
        // [a b; c d] = [ux uy; vx vy] · [xx xy; xy yy]⁻¹
        let a = (ux * yy - uy * xy) / det, b = (uy * xx - ux * xy) / det
        let c = (vx * yy - vy * xy) / det, d = (vy * xx - vx * xy) / det
        let h = Homography(matrix: [a, b, dx - a * sx - b * sy, c, d, dy - c * sx - d * sy, 0, 0, 1])
        return h.matrix.allSatisfy(\.isFinite) ? h : nil
    }
}
