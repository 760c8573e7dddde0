/// Convex hulls by Andrew's monotone chain (A. M. Andrew, "Another efficient algorithm for
/// convex hulls in two dimensions", Information Processing Letters 9(5), 1979): points sorted
/// along one axis, a lower and an upper chain built with a stack, O(n) after the sort.
enum ConvexHull {
    /// The hull of `points` (any order), clockwise on screen (y down, positive shoelace area, the
    /// order of `Quad`'s corners), without collinear points; fewer than 3 points when they are
    /// all on one line.
    static func hull(_ points: [Point]) -> [Point] {
        hull(rasterOrdered: points.sorted { ($0.y, $0.x) < ($1.y, $1.x) }[...])
    }

    /// The hull of `points` already in raster order (by y, then x), as `TextRegionOutlines`
    /// makes them: no sort.
    static func hull(rasterOrdered points: ArraySlice<Point>) -> [Point] {
        guard points.count > 2 else {
            if points.count == 2 && points.first! == points.last! { return [points.first!] }
            return Array(points)
        }
        // Sorted by y, the first chain runs top to bottom down the right-hand side and the
        // second back up the left; a point that does not turn clockwise on screen (a cross
        // product of zero or less, y down) is popped, so collinear points go too.
        @inline(__always)
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var hull: [Point] = []
        hull.reserveCapacity(points.count + 1)
        for p in points {
            while hull.count >= 2 && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        let lowerCount = hull.count + 1
        for p in points.reversed().dropFirst() {
            while hull.count >= lowerCount && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        hull.removeLast()
        return hull
    }

    /// Area by the shoelace formula: positive for clockwise-on-screen order.
    static func area(_ polygon: [Point]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var sum = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[i + 1 == polygon.count ? 0 : i + 1]
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    /// The length of the closed outline.
    static func perimeter(_ polygon: [Point]) -> Double {
        guard polygon.count >= 2 else { return 0 }
        return polygon.indices.reduce(0) { $0 + polygon[$1].distance(to: polygon[$1 + 1 == polygon.count ? 0 : $1 + 1]) }
    }
}
