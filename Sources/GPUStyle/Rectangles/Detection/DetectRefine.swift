import Foundation

/// Sub-pixel corners at full resolution: for each side of a coarse quad, find the edge along
/// many short profiles across it (gradient peak with a parabola fit), fit a line robustly, and
/// intersect neighbouring sides.
enum DetectRefine {
    typealias Parameters = DetectionParameters.Refine
    struct Line {
        var point: Point
        var direction: Point
        func intersection(_ other: Line) -> Point? {
            let det = direction.x * other.direction.y - direction.y * other.direction.x
            guard abs(det) > 1e-9 else { return nil }
            let diff = other.point - point
            let t = (diff.x * other.direction.y - diff.y * other.direction.x) / det
            return point + direction * t
        }
    }

    static func run(_ quad: Quad, image: Image, searchRadius: Double) -> Quad {
        let corners = quad.corners
        var lines: [Line] = []
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            lines.append(fitSide(from: a, to: b, image: image, radius: searchRadius) ?? Line(point: a, direction: unit(b - a)))
        }
        var refined: [Point] = []
        for i in 0..<4 {
            // Corner i joins side i-1 (ending at it) and side i (starting at it).
            guard let p = lines[(i + 3) % 4].intersection(lines[i]), p.distance(to: corners[i]) < 4 * searchRadius else {
                return quad
            }
            refined.append(p)
        }
        return Quad(corners: refined)
    }

    static func unit(_ p: Point) -> Point { p * (1 / max(p.length, 1e-12)) }

    static func fitSide(from a: Point, to b: Point, image: Image, radius: Double) -> Line? {
        let length = a.distance(to: b)
        guard length > 8 else { return nil }
        let d = unit(b - a), n = Point(x: -d.y, y: d.x)
        let samples = min(240, max(12, Int(length / 2)))
        let step = 0.5
        // The peak is looked for within `radius`; the profile runs on to `blurRadius` for the
        // extent of a blurred edge's gradient.
        let narrow = Int(radius / step), half = max(narrow, Int(Parameters.blurRadius / step))
        let count = 2 * half + 1
        /// Luma at profile index j (pixel `half` is the side) across the side through p.
        func sample(_ p: Point, _ j: Int) -> Double { luma(image, p + n * ((Double(j) - Double(half)) * step)) }
        var profiles: [[Double]] = []
        var origins: [Point] = []
        for k in 0..<samples {
            let s = 0.08 + 0.84 * (Double(k) + 0.5) / Double(samples)
            let p = a + (b - a) * s
            // Only the narrow part now (what the peak needs); the rest when a plateau reaches it.
            var profile = [Double](repeating: .nan, count: count)
            for j in (half - narrow)...(half + narrow) {
                profile[j] = sample(p, j)
            }
            profiles.append(profile)
            origins.append(p)
        }
        // The side's polarity (darker inside or outside) from the summed central derivative.
        var polarity = 0.0
        for profile in profiles { polarity += profile[count / 2 + 1] - profile[count / 2 - 1] }
        let sign: Double = polarity >= 0 ? 1 : -1
        var points: [(Point, Double)] = []
        for (k, origin) in origins.enumerated() {
            var profile = profiles[k]
            func value(_ j: Int) -> Double {
                if profile[j].isNaN { profile[j] = sample(origin, j) }
                return profile[j]
            }
            func g(_ j: Int) -> Double { sign * (value(j + 1) - value(j - 1)) }
            var best = 0.0, at = -1
            // As within a profile of the narrow radius alone: a peak at its ends is no peak.
            let first = half - narrow + 1, last = half + narrow - 1
            for j in first...last where g(j) > best { best = g(j); at = j }
            guard at > first, at < last, best > 0.01 else { continue }
            // A motion-blurred edge's gradient is a plateau as wide as the motion: its peak is
            // anywhere on it, its middle is where the edge was at mid-exposure.
            var lo = at, hi = at
            while lo > 1, g(lo - 1) >= Parameters.plateauLevel * best { lo -= 1 }
            while hi < count - 2, g(hi + 1) >= Parameters.plateauLevel * best { hi += 1 }
            let position: Double
            if Double(hi - lo) * step >= Parameters.blurWidth {
                guard lo > 1, hi < count - 2 else { continue }  // the plateau runs off the profile
                var sum = 0.0, weighted = 0.0
                for j in lo...hi { sum += g(j); weighted += g(j) * Double(j) }
                position = weighted / sum
            } else {
                let gm = sign * (profile[at] - profile[at - 2]), gp = sign * (profile[at + 2] - profile[at])
                let denominator = gm - 2 * best + gp
                position = Double(at) + (denominator < 0 ? max(-0.5, min(0.5, 0.5 * (gm - gp) / denominator)) : 0)
            }
            let t = (position - Double(half)) * step
            points.append((origin + n * t, best))
        }
        guard points.count >= max(6, samples / 4) else { return nil }
        return robustFit(points)
    }

    /// Weighted total-least-squares line, refitted twice without points far from the line.
    static func robustFit(_ input: [(Point, Double)]) -> Line? {
        var points = input
        var line: Line?
        for _ in 0..<3 {
            guard points.count >= 4 else { break }
            var w = 0.0, mx = 0.0, my = 0.0
            for (p, weight) in points { w += weight; mx += weight * p.x; my += weight * p.y }
            mx /= w; my /= w
            var cxx = 0.0, cyy = 0.0, cxy = 0.0
            for (p, weight) in points {
                cxx += weight * (p.x - mx) * (p.x - mx)
                cyy += weight * (p.y - my) * (p.y - my)
                cxy += weight * (p.x - mx) * (p.y - my)
            }
            let angle = 0.5 * atan2(2 * cxy, cxx - cyy)
            let fitted = Line(point: Point(x: mx, y: my), direction: Point(x: cos(angle), y: sin(angle)))
            line = fitted
            let normal = Point(x: -fitted.direction.y, y: fitted.direction.x)
            let residuals = points.map { abs(($0.0.x - mx) * normal.x + ($0.0.y - my) * normal.y) }
            let median = residuals.sorted()[residuals.count / 2]
            let limit = max(0.5, 3 * median)
            let kept = zip(points, residuals).filter { $0.1 <= limit }.map(\.0)
            if kept.count == points.count { break }
            points = kept
        }
        return line
    }

    /// Bilinear luma at a point (pixel centres at integers), borders clamped.
    static func luma(_ image: Image, _ p: Point) -> Double {
        let w = image.width, h = image.height
        let x = min(max(p.x, 0), Double(w - 1)), y = min(max(p.y, 0), Double(h - 1))
        let x0 = min(Int(x), w - 2 < 0 ? 0 : w - 2), y0 = min(Int(y), h - 2 < 0 ? 0 : h - 2)
        let fx = x - Double(x0), fy = y - Double(y0)
        let plane = w * h
        func at(_ xx: Int, _ yy: Int) -> Double {
            let i = yy * w + xx
            return 0.299 * Double(image.rgb[i]) + 0.587 * Double(image.rgb[plane + i]) + 0.114 * Double(image.rgb[2 * plane + i])
        }
        let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
        let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
        return top * (1 - fy) + bottom * fy
    }
}
