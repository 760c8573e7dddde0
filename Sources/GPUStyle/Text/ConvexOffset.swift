/// A convex polygon grown outward by a distance: every edge pushed out along its normal, and
/// adjacent pushed edges met at a corner (a mitred join). This is DB's "unclip" step (Liao et
/// al. 2020: at inference the shrunk text kernel is dilated by D' = A' x r' / L').
///
/// PaddleOCR grows the polygon with pyclipper and round joins (JT_ROUND), which cut the corners
/// off in arcs. It then takes the result's minimum-area rectangle; for a rectangle grown either
/// way that is the same rectangle (the arcs touch the pushed edges and stay inside the mitred
/// corners), so mitring, which needs no arcs, gives the same box.
enum ConvexOffset {
    /// `polygon` (convex, clockwise on screen, no repeated points) grown by `distance` (negative
    /// shrinks; only small shrinks keep the shape).
    static func offset(_ polygon: [Point], by distance: Double) -> [Point] {
        let n = polygon.count
        guard n >= 3 else { return polygon }
        // Outward normal of edge i (from point i to i + 1): the edge direction turned
        // anticlockwise on screen, away from the inside.
        let normals = (0..<n).map { i -> Point in
            let d = polygon[i + 1 == n ? 0 : i + 1] - polygon[i]
            return Point(x: d.y, y: -d.x) * (1 / d.length)
        }
        return (0..<n).map { i in
            // Corner i joins edge i - 1 and edge i. Moving it by m = (a + b) / (1 + a.b) x
            // distance puts it at distance `distance` from both pushed lines (m.a = m.b =
            // distance); 1 + a.b > 0 at every corner of a convex polygon (turns under 180°).
            let a = normals[i == 0 ? n - 1 : i - 1], b = normals[i]
            let scale = distance / (1 + a.x * b.x + a.y * b.y)
            return polygon[i] + (a + b) * scale
        }
    }
}
