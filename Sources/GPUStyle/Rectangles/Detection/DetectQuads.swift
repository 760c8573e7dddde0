import Foundation

/// A quad made of four detected lines, in working-image coordinates.
struct QuadCandidate {
    var quad: Quad
    /// Indices of the lines along top, right, bottom, left (the sides from corner i to i+1).
    var lines: [Int]
    /// Edge coverage of each side (0...1).
    var coverage: [Double]
    /// `DetectJunctions.overshoot`, filled in when candidates are ranked.
    var overshoot = 0.0
    /// Found only through a T corner (`DetectCorners`): never taken as another pick's outline
    /// (`RectangleDetector.outermost`), where a background line's Ts made a committed scene's
    /// frame grow onto the wall.
    var throughT = false
    var score: Double { 0.5 * coverage.min()! + 0.5 * coverage.reduce(0, +) / 4 }
}

/// Quad hypotheses from pairs of line pairs, filtered by Vision's geometric parameters and
/// scored by how much of each side is backed by image edges.
enum DetectQuads {
    typealias Parameters = DetectionParameters.Quads

    /// The smallest side (working pixels) the options allow on `map`.
    static func minimumSide(_ map: EdgeMap, options: RectangleDetectionOptions) -> Double {
        max(Parameters.minimumSidePixels, options.minimumSize * Double(min(map.width, map.height)))
    }

    /// The smallest angle (degrees) at which sides of neighbouring corners may cross: 90° less
    /// the quadrature tolerance, and less half the skew perspective gives opposite sides.
    static func minimumCrossing(_ options: RectangleDetectionOptions) -> Double {
        90 - options.quadratureTolerance - Parameters.maximumOppositeSkew / 2
    }

    static func run(_ lines: [DetectedLine], map: EdgeMap, options: RectangleDetectionOptions) -> [QuadCandidate] {
        let minimumSide = minimumSide(map, options: options)
        let n = lines.count
        var angles = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n { angles[i * n + j] = angleBetween(lines[i], lines[j]) } }
        var pairs: [(Int, Int)] = []
        for i in 0..<n {
            for j in (i + 1)..<n where angles[i * n + j] <= Parameters.maximumOppositeSkew {
                // Opposite sides must be at least the minimum size apart (measured at line i's
                // foot point, which is where the skew matters least).
                let foot = lines[i].point(at: 0)
                let gap = abs(foot.x * lines[j].cosTheta + foot.y * lines[j].sinTheta - lines[j].rho)
                if gap >= Parameters.minimumPairGap * minimumSide { pairs.append((i, j)) }
            }
        }
        let minimumCrossing = minimumCrossing(options)
        return collect(pairs.count) { p, found in
            for q in (p + 1)..<pairs.count {
                let (a, b) = pairs[p], (c, d) = pairs[q]
                guard a != c && a != d && b != c && b != d else { continue }
                guard angles[a * n + c] >= minimumCrossing, angles[b * n + d] >= minimumCrossing else { continue }
                if let candidate = makeCandidate(lines, a, b, c, d, map: map, minimumSide: minimumSide, options: options) {
                    found.append(candidate)
                }
            }
        }
    }

    /// `body(k, &found)` for k in 0..<count on the worker threads, worker w taking every
    /// workers-th k from w; each worker collects its own candidates, merged in worker order so
    /// that results do not depend on timing.
    static func collect(_ count: Int, _ body: (Int, inout [QuadCandidate]) -> Void) -> [QuadCandidate] {
        let workers = max(1, min(ParallelFor.workers, count))
        var perWorker = [[QuadCandidate]](repeating: [], count: workers)
        perWorker.withUnsafeMutableBufferPointer { perWorker in
            ParallelFor.ranges(workers) { range in
                for worker in range {
                    var found: [QuadCandidate] = []
                    for k in stride(from: worker, to: count, by: workers) { body(k, &found) }
                    perWorker[worker] = found
                }
            }
        }
        return perWorker.flatMap { $0 }
    }

    /// Angle between two lines' directions, 0...90 degrees.
    static func angleBetween(_ a: DetectedLine, _ b: DetectedLine) -> Double {
        let c = abs(cos(a.theta - b.theta))
        return acos(min(1, c)) * 180 / .pi
    }

    static func makeCandidate(_ lines: [DetectedLine], _ a: Int, _ b: Int, _ c: Int, _ d: Int,
                              map: EdgeMap, minimumSide: Double, options: RectangleDetectionOptions) -> QuadCandidate? {
        // Walk a∩c → a∩d → b∩d → b∩c: sides a, d, b, c.
        guard let p0 = lines[a].intersection(lines[c]), let p1 = lines[a].intersection(lines[d]),
              let p2 = lines[b].intersection(lines[d]), let p3 = lines[b].intersection(lines[c]) else { return nil }
        guard [p0, p1, p2, p3].allSatisfy(map.holdsCorner) else { return nil }
        var corners = [p0, p1, p2, p3]
        var sideLines = [a, d, b, c]
        guard isConvex(corners) else { return nil }
        if Quad(topLeft: p0, topRight: p1, bottomRight: p2, bottomLeft: p3).area < 0 {
            corners = [p0, p3, p2, p1]
            sideLines = [c, b, d, a]
        }
        let sides = (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }
        let width = (sides[0] + sides[2]) / 2, height = (sides[1] + sides[3]) / 2
        guard min(width, height) >= minimumSide, passesGeometry(corners, options: options) else { return nil }
        // Edge support along each side, ignoring a little near the corners (rounded frame corners).
        var coverage: [Double] = []
        for i in 0..<4 {
            let line = lines[sideLines[i]]
            let t0 = line.parameter(of: corners[i]), t1 = line.parameter(of: corners[(i + 1) % 4])
            let trim = Parameters.cornerTrim * abs(t1 - t0)
            let cov = line.coverage(min(t0, t1) + trim, max(t0, t1) - trim)
            guard cov >= Parameters.minimumSideCoverage else { return nil }
            coverage.append(cov)
        }
        guard coverage.reduce(0, +) / 4 >= Parameters.minimumMeanCoverage else { return nil }
        let quad = Quad(corners: corners)
        return QuadCandidate(quad: quad, lines: sideLines, coverage: coverage)
    }

    /// Vision's aspect-ratio and corner-angle gates for a clockwise quad.
    static func passesGeometry(_ corners: [Point], options: RectangleDetectionOptions) -> Bool {
        let sides = (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }
        let width = (sides[0] + sides[2]) / 2, height = (sides[1] + sides[3]) / 2
        let aspect = min(width, height) / max(width, height)
        guard aspect >= options.minimumAspectRatio - 1e-9, aspect <= options.maximumAspectRatio + 1e-9 else { return false }
        return (0..<4).allSatisfy { abs(Quad.cornerAngle(corners, at: $0) - 90) <= options.quadratureTolerance }
    }

    static func isConvex(_ c: [Point]) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4], d = c[(i + 2) % 4]
            let cross = (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x)
            guard abs(cross) > 1e-9 else { return false }
            if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
        return true
    }
}

extension Quad {
    /// Interior angle at corner `i` of the polygon `c`, in degrees, between the sides to its two
    /// neighbours (on an array, so that a caller testing many corner sets builds no quads).
    static func cornerAngle(_ c: [Point], at i: Int) -> Double {
        let n = c.count
        let u = c[(i + n - 1) % n] - c[i], v = c[(i + 1) % n] - c[i]
        return acos(max(-1, min(1, (u.x * v.x + u.y * v.y) / (u.length * v.length)))) * 180 / .pi
    }

    /// The largest distance between a corner and the other quad's corresponding corner.
    func largestCornerDistance(to other: Quad) -> Double {
        zip(corners, other.corners).map { $0.distance(to: $1) }.max() ?? .infinity
    }

    /// Whether every corner lies within `distance` of the other quad's corresponding corner.
    func isNear(_ other: Quad, within distance: Double) -> Bool {
        zip(corners, other.corners).allSatisfy { $0.distance(to: $1) < distance }
    }

    /// Whether p lies inside the (convex) quad or within `tolerance` pixels outside it.
    func contains(_ p: Point, tolerance: Double) -> Bool {
        let orientation: Double = area >= 0 ? 1 : -1
        for i in 0..<4 {
            let a = corner(i), b = corner(i + 1)
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if orientation * cross / max(a.distance(to: b), 1e-12) < -tolerance { return false }
        }
        return true
    }
}
