/// Areas of convex polygons and of their intersection (Sutherland-Hodgman clipping of one by the
/// other's edges: exact for convex polygons), for merging text regions found twice.
enum ConvexOverlap {
    /// Shoelace area (absolute).
    static func area(_ polygon: [Point]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twice = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    /// The area both convex polygons cover.
    static func intersectionArea(_ subject: [Point], _ clip: [Point]) -> Double {
        guard subject.count >= 3, clip.count >= 3 else { return 0 }
        // Orient the clip polygon's edges so "inside" is the side the polygon's centroid is on.
        let centre = Point.mean(clip)
        var output = subject
        for i in clip.indices {
            let a = clip[i], b = clip[(i + 1) % clip.count]
            func side(_ p: Point) -> Double { (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) }
            let inside = side(centre) >= 0 ? 1.0 : -1.0
            let input = output
            output = []
            guard !input.isEmpty else { break }
            for j in input.indices {
                let p = input[j], q = input[(j + 1) % input.count]
                let sp = side(p) * inside, sq = side(q) * inside
                if sp >= 0 { output.append(p) }
                if (sp >= 0) != (sq >= 0) {
                    let t = sp / (sp - sq)
                    output.append(Point(x: p.x + t * (q.x - p.x), y: p.y + t * (q.y - p.y)))
                }
            }
        }
        return area(output)
    }
}
