/// The smallest-area rectangle around a convex polygon, by rotating calipers (G. Toussaint,
/// "Solving geometric problems with the rotating calipers", Proc. IEEE MELECON 1983): the
/// smallest enclosing rectangle has a side on one of the hull's edges (H. Freeman and
/// R. Shapira, Communications of the ACM 18(7), 1975), and as the edge under test goes round
/// the hull, the hull points farthest along it, against it and away from it only move forward,
/// so all edges are tried in O(n). What `cv2.minAreaRect` computes for PaddleOCR.
struct MinimumAreaRectangle: Equatable {
    /// Clockwise on screen: corners[0] -> corners[1] lies along the hull edge the rectangle
    /// rests on (`length`), corners[1] -> corners[2] across it (`breadth`).
    var corners: [Point]
    var length: Double
    var breadth: Double

    var area: Double { length * breadth }
    var shorterSide: Double { min(length, breadth) }

    /// The rectangle around `hull`, a convex polygon clockwise on screen without collinear
    /// points (`ConvexHull`'s output); nil for fewer than 3 points (no area).
    init?(hull: [Point]) {
        let n = hull.count
        guard n >= 3 else { return nil }
        @inline(__always) func next(_ i: Int) -> Int { i + 1 == n ? 0 : i + 1 }
        @inline(__always) func direction(_ i: Int) -> Point {
            let d = hull[next(i)] - hull[i]
            return d * (1 / d.length)
        }
        @inline(__always) func dot(_ a: Point, _ b: Point) -> Double { a.x * b.x + a.y * b.y }
        // Inside lies on the positive side: cross(u, p - edge start) >= 0 for the screen-
        // clockwise order.
        @inline(__always) func cross(_ a: Point, _ b: Point) -> Double { a.x * b.y - a.y * b.x }

        // Extreme points for edge 0 by a full scan; from then on they only advance.
        let u0 = direction(0)
        var ahead = 0, behind = 0, across = 0
        for k in 1..<n {
            if dot(u0, hull[k]) > dot(u0, hull[ahead]) { ahead = k }
            if dot(u0, hull[k]) < dot(u0, hull[behind]) { behind = k }
            if cross(u0, hull[k] - hull[0]) > cross(u0, hull[across] - hull[0]) { across = k }
        }
        var best: (area: Double, edge: Int, low: Double, high: Double, breadth: Double)?
        for i in 0..<n {
            let u = direction(i), o = hull[i]
            // Each pointer moves at most once round the hull in total; the step bound only
            // guards against rounding on near-parallel edges.
            var steps = 0
            while steps < n && dot(u, hull[next(ahead)]) >= dot(u, hull[ahead]) { ahead = next(ahead); steps += 1 }
            steps = 0
            while steps < n && dot(u, hull[next(behind)]) <= dot(u, hull[behind]) { behind = next(behind); steps += 1 }
            steps = 0
            while steps < n && cross(u, hull[next(across)] - o) >= cross(u, hull[across] - o) { across = next(across); steps += 1 }
            let low = dot(u, hull[behind] - o), high = dot(u, hull[ahead] - o)
            let breadth = cross(u, hull[across] - o)
            let area = (high - low) * breadth
            if best == nil || area < best!.area { best = (area, i, low, high, breadth) }
        }
        let b = best!
        let u = direction(b.edge), o = hull[b.edge]
        let inward = Point(x: -u.y, y: u.x)
        corners = [o + u * b.low, o + u * b.high, o + u * b.high + inward * b.breadth, o + u * b.low + inward * b.breadth]
        length = b.high - b.low
        breadth = b.breadth
    }

    /// The rectangle around `points` (any order): hull, then calipers.
    init?(points: [Point]) {
        self.init(hull: ConvexHull.hull(points))
    }
}
