import Foundation

/// Whether a quad's corners are corners of an object. At a picture's corner both sides' edges
/// stop (an L); a rectangle cut out of the picture by a line of its content has T corners (the
/// picture's side runs on past the content line), and a quad closed by a background line has
/// that line running on past its corners.
enum DetectJunctions {
    typealias Parameters = DetectionParameters.Junctions

    /// Mean share of edge support on the eight stretches just past the corners, along each side's
    /// line (0: every corner an L, 1: every side runs on).
    static func overshoot(_ quad: Quad, map: EdgeMap) -> Double {
        let c = quad.corners
        var total = 0.0
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4]
            let length = a.distance(to: b)
            guard length > 1 else { continue }
            let d = (b - a) * (1 / length)
            let reach = max(Parameters.minimumReach, Parameters.reachShare * length)
            for (from, direction) in [(b, d), (a, d * -1)] {
                let p0 = from + direction * Parameters.gap, p1 = from + direction * (Parameters.gap + reach)
                total += map.sideCoverage(from: p0, to: p1, minimum: 0)
            }
        }
        return total / 8
    }
}
