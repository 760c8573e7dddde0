import Foundation

/// Straight edge segments, grown from the thin edge map the way LSD grows line-support regions
/// (Grompone von Gioi et al., "LSD: a Line Segment Detector", IPOL 2012): from the strongest
/// unclaimed edge pixel, claim 8-connected edge pixels whose gradient orientation stays within
/// 22.5° of the region's mean, then fit a line to the region.
///
/// Why next to the Hough lines: a Hough peak counts strong edge pixels, so a low-contrast side
/// (a dark painting on a dark brick wall) loses to the wall's crisp mortar lines however straight
/// and continuous it is. A segment's length counts continuity instead of contrast, so the
/// longest segments nominate the sides the vote missed.
enum DetectSegments {
    struct Segment {
        var line: DetectedLine
        /// Extent along `line.direction`.
        var t0: Double
        var t1: Double
        var moments: LineMoments
        var length: Double { t1 - t0 }
    }

    /// cos(2 × 22.5°): orientations are compared as doubled angles.
    static let doubledAngleTolerance = Float(cos(2 * 22.5 * Double.pi / 180))

    /// Pieces shorter than a side can still be joined into one (`merge`).
    static let minimumPiece = 5.0

    static func find(_ map: EdgeMap, minimumLength: Double) -> [Segment] {
        let w = map.width, h = map.height
        guard w >= 3, h >= 3 else { return [] }
        // Only edge pixels start unclaimed; the border never holds one (thinning skips it), so
        // neighbours need no bounds checks.
        var claimed = [Bool](repeating: true, count: w * h)
        var segments: [Segment] = []
        var region: [Int] = []
        let neighbours = [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1]
        map.edges.withUnsafeBufferPointer { edges in
            map.gx.withUnsafeBufferPointer { gx in
                map.gy.withUnsafeBufferPointer { gy in
                    claimed.withUnsafeMutableBufferPointer { claimed in
                        let seeds = strongestFirst(edges, width: w, height: h)
                        for i in seeds { claimed[i] = false }
                        // (cos 2φ, sin 2φ) of the gradient angle φ: opposite gradient directions
                        // (the same edge with the contrast reversed along it) are one orientation.
                        func doubled(_ i: Int) -> (Float, Float) {
                            let x = gx[i], y = gy[i]
                            let m2 = max(x * x + y * y, .leastNormalMagnitude)
                            return ((x * x - y * y) / m2, 2 * x * y / m2)
                        }
                        for seed in seeds where !claimed[seed] {
                            claimed[seed] = true
                            region.removeAll(keepingCapacity: true)
                            region.append(seed)
                            var (sumC, sumS) = doubled(seed)
                            var next = 0
                            while next < region.count {
                                let i = region[next]
                                next += 1
                                let limit = doubledAngleTolerance * (sumC * sumC + sumS * sumS).squareRoot()
                                for offset in neighbours {
                                    let j = i + offset
                                    guard !claimed[j] else { continue }
                                    let (c, s) = doubled(j)
                                    guard c * sumC + s * sumS >= limit else { continue }
                                    claimed[j] = true
                                    region.append(j)
                                    sumC += c
                                    sumS += s
                                }
                            }
                            guard Double(region.count) >= minimumPiece, let segment = fit(region, width: w),
                                  segment.length >= minimumPiece else { continue }
                            segments.append(segment)
                        }
                    }
                }
            }
        }
        return merge(segments).filter { $0.length >= minimumLength }
    }

    /// The edge pixels off the border, strongest first: a counting sort over 1024 magnitude bins
    /// (as LSD orders its seeds), in scan order within a bin.
    static func strongestFirst(_ edges: UnsafeBufferPointer<Float>, width w: Int, height h: Int) -> [Int] {
        var pixels: [Int] = []
        var top: Float = 0
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) where edges[y * w + x] > 0 {
                pixels.append(y * w + x)
                top = max(top, edges[y * w + x])
            }
        }
        guard top > 0 else { return [] }
        let bins = 1024
        let toBin = Float(bins - 1) / top
        var counts = [Int](repeating: 0, count: bins + 1)
        for i in pixels { counts[bins - 1 - Int(edges[i] * toBin)] += 1 }
        var start = 0
        for b in 0..<bins { let c = counts[b]; counts[b] = start; start += c }
        var sorted = [Int](repeating: 0, count: pixels.count)
        for i in pixels {
            let b = bins - 1 - Int(edges[i] * toBin)
            sorted[counts[b]] = i
            counts[b] += 1
        }
        return sorted
    }

    static func fit(_ region: [Int], width w: Int) -> Segment? {
        var moments = LineMoments()
        for i in region { moments.add(Double(i % w), Double(i / w)) }
        guard let line = moments.line(facing: reference, votes: region.count) else { return nil }
        var t0 = Double.infinity, t1 = -Double.infinity
        for i in region {
            let t = line.parameter(of: Point(x: Double(i % w), y: Double(i / w)))
            t0 = min(t0, t); t1 = max(t1, t)
        }
        return Segment(line: line, t0: t0, t1: t1, moments: moments)
    }

    /// Lines are kept with θ in [0, π), like the Hough lines.
    static let reference = DetectedLine(theta: .pi / 2, rho: 0, votes: 0)

    /// Joins collinear pieces of one edge (a side broken by a shadow, a hand, or weak contrast):
    /// pieces within 4° and 2 px of each other's line, with a gap no longer than the shorter
    /// piece, are joined transitively; a chain that bends (its points spread more than 1.5 px
    /// from their common line: an arc) stays in pieces. Pieces are compared only with those of
    /// similar angle (sorted by θ), so this stays near-linear in their number.
    static func merge(_ pieces: [Segment]) -> [Segment] {
        let order = pieces.indices.sorted { pieces[$0].line.theta < pieces[$1].line.theta }
        let window = 4 * Double.pi / 180
        var parent = Array(pieces.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for (k, i) in order.enumerated() {
            // θ lies in [0, π): the neighbours within the window, wrapping around at π.
            var step = 1
            while step < order.count {
                let j = order[(k + step) % order.count]
                var gap = pieces[j].line.theta - pieces[i].line.theta
                if gap < 0 { gap += .pi }
                guard gap <= window else { break }
                if joinable(pieces[i], pieces[j]) && joinable(pieces[j], pieces[i]) { parent[root(j)] = root(i) }
                step += 1
            }
        }
        var members = [[Int]](repeating: [], count: pieces.count)
        for i in pieces.indices { members[root(i)].append(i) }
        var segments: [Segment] = []
        for group in members where !group.isEmpty {
            guard group.count > 1 else { segments.append(pieces[group[0]]); continue }
            var moments = LineMoments()
            for i in group { moments.add(pieces[i].moments) }
            guard moments.spread <= 1.5,
                  let line = moments.line(facing: reference, votes: group.reduce(0) { $0 + pieces[$1].line.votes }) else {
                segments += group.map { pieces[$0] }
                continue
            }
            let ends = group.flatMap { [pieces[$0].line.point(at: pieces[$0].t0), pieces[$0].line.point(at: pieces[$0].t1)] }
                .map { line.parameter(of: $0) }
            segments.append(Segment(line: line, t0: ends.min()!, t1: ends.max()!, moments: moments))
        }
        return segments.sorted { $0.length > $1.length || ($0.length == $1.length && $0.line.rho < $1.line.rho) }
    }

    /// Whether b's ends lie within 2 px of a's line, and the gap between them along it is no
    /// longer than the shorter of the two.
    @inline(__always)
    static func joinable(_ a: Segment, _ b: Segment) -> Bool {
        let e0 = b.line.point(at: b.t0), e1 = b.line.point(at: b.t1)
        let l = a.line
        guard abs(e0.x * l.cosTheta + e0.y * l.sinTheta - l.rho) <= 2, abs(e1.x * l.cosTheta + e1.y * l.sinTheta - l.rho) <= 2
        else { return false }
        let u0 = l.parameter(of: e0), u1 = l.parameter(of: e1)
        let gap = max(min(u0, u1) - a.t1, a.t0 - max(u0, u1))
        return gap <= max(6, min(a.length, b.length))
    }
}
