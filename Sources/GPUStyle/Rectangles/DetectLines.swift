import Foundation

/// A straight line `x cos θ + y sin θ = ρ` in working-image coordinates (θ is the normal's angle).
struct DetectedLine {
    let theta: Double
    let rho: Double
    let votes: Int
    /// Along the line, 1 where an edge pixel with a matching orientation lies within 1.5 px, as a
    /// prefix sum indexed by t + tOffset (t = position along the line, 1 px steps).
    var support: [Int32] = []
    var tOffset = 0

    let cosTheta: Double
    let sinTheta: Double

    init(theta: Double, rho: Double, votes: Int) {
        self.theta = theta
        self.rho = rho
        self.votes = votes
        cosTheta = cos(theta)
        sinTheta = sin(theta)
    }

    var normal: Point { Point(x: cosTheta, y: sinTheta) }
    var direction: Point { Point(x: -sinTheta, y: cosTheta) }

    func point(at t: Double) -> Point { normal * rho + direction * t }
    func parameter(of p: Point) -> Double { p.x * direction.x + p.y * direction.y }

    /// Share of the segment between parameters t0 and t1 that has edge support.
    func coverage(_ t0: Double, _ t1: Double) -> Double {
        let a = Int(min(t0, t1).rounded()) + tOffset, b = Int(max(t0, t1).rounded()) + tOffset
        let lo = max(0, min(a, support.count - 1)), hi = max(0, min(b, support.count - 1))
        guard hi > lo else { return 0 }
        return Double(support[hi] - support[lo]) / Double(b - a)
    }

    func intersection(_ other: DetectedLine) -> Point? {
        let det = cosTheta * other.sinTheta - sinTheta * other.cosTheta
        guard abs(det) > 1e-6 else { return nil }
        return Point(x: (rho * other.sinTheta - other.rho * sinTheta) / det,
                     y: (other.rho * cosTheta - rho * other.cosTheta) / det)
    }
}

/// Orientation-constrained Hough transform: each strong edge pixel votes only for line angles
/// within a few degrees of its own gradient direction, which keeps voting cheap and peaks sharp.
enum DetectLines {
    static let thetaBins = 180
    static let voteSpread = 2

    static func run(_ map: EdgeMap, minimumVotes: Int, maximumLines: Int = 40) -> [DetectedLine] {
        let w = map.width, h = map.height
        let diagonal = Int((Double(w * w + h * h)).squareRoot()) + 1
        let rhoBins = 2 * diagonal + 1
        var accumulator = [Int32](repeating: 0, count: thetaBins * rhoBins)
        let cosines = (0..<thetaBins).map { cos(Double($0) * .pi / Double(thetaBins)) }
        let sines = (0..<thetaBins).map { sin(Double($0) * .pi / Double(thetaBins)) }
        accumulator.withUnsafeMutableBufferPointer { acc in
            for y in 0..<h {
                for x in 0..<w {
                    let i = y * w + x
                    guard map.edges[i] >= map.strongThreshold else { continue }
                    var angle = Double(atan2f(map.gy[i], map.gx[i]))
                    if angle < 0 { angle += .pi }
                    let center = Int((angle * Double(thetaBins) / .pi).rounded())
                    for d in -voteSpread...voteSpread {
                        let t = (center + d + thetaBins) % thetaBins
                        let rho = Int((Double(x) * cosines[t] + Double(y) * sines[t]).rounded()) + diagonal
                        acc[t * rhoBins + rho] += 1
                    }
                }
            }
        }
        // Peaks: local maxima over a 3x5 (θ x ρ) window, strongest first (a frame's border and
        // a nearby line of text can be just a few pixels apart).
        var peaks: [(votes: Int32, t: Int, r: Int)] = []
        for t in 0..<thetaBins {
            for r in 0..<rhoBins {
                let v = accumulator[t * rhoBins + r]
                guard v >= minimumVotes else { continue }
                var isPeak = true
                search: for dt in -1...1 {
                    let tt = (t + dt + thetaBins) % thetaBins
                    for dr in -2...2 where dt != 0 || dr != 0 {
                        let rr = r + dr
                        guard rr >= 0 && rr < rhoBins else { continue }
                        let u = accumulator[tt * rhoBins + rr]
                        if u > v || (u == v && (dt, dr) < (0, 0)) { isPeak = false; break search }
                    }
                }
                if isPeak { peaks.append((v, t, r)) }
            }
        }
        peaks.sort { $0.votes > $1.votes }
        // Refit each peak to its pixels; neighbouring peaks often converge on the same edge,
        // and duplicates would only multiply the quad hypotheses.
        var lines: [DetectedLine] = []
        for peak in peaks {
            if lines.count >= maximumLines { break }
            var line = refine(DetectedLine(theta: Double(peak.t) * .pi / Double(thetaBins), rho: Double(peak.r - diagonal),
                                           votes: Int(peak.votes)), map)
            let duplicate = lines.contains { other in
                abs(sin(other.theta - line.theta)) < sin(1.0 * .pi / 180) && abs(other.rho - line.rho * cos(other.theta - line.theta)) < 1.0
            }
            if duplicate { continue }
            measureSupport(&line, map)
            lines.append(line)
        }
        return lines
    }

    /// Least-squares fit (total least squares) to the edge pixels near the Hough line whose
    /// gradient agrees with it: Hough bins are 1° and 1 px, too coarse for long sides.
    static func refine(_ line: DetectedLine, _ map: EdgeMap) -> DetectedLine {
        var current = line
        for radius in [2.0, 1.2] {
            var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0, n = 0.0
            forEachSupportingPixel(current, map, radius: radius) { x, y in
                sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y; n += 1
            }
            guard n >= 8 else { return current }
            let mx = sx / n, my = sy / n
            let cxx = sxx / n - mx * mx, cyy = syy / n - my * my, cxy = sxy / n - mx * my
            // The normal is the eigenvector of the smaller eigenvalue of the scatter matrix.
            let angle = 0.5 * atan2(2 * cxy, cxx - cyy)  // direction of the larger eigenvalue
            var theta = angle + .pi / 2
            var rho = mx * cos(theta) + my * sin(theta)
            // The same line has two (θ, ρ) forms; keep the one facing like the original.
            if cos(theta - current.theta) < 0 { theta += .pi; rho = -rho }
            current = DetectedLine(theta: theta, rho: rho, votes: line.votes)
        }
        return current
    }

    /// Calls `body` once for each edge pixel within `radius` of the line whose gradient is within
    /// 22.5° of the line's normal (either sign). Walks the line's major axis pixel by pixel.
    static func forEachSupportingPixel(_ line: DetectedLine, _ map: EdgeMap, radius: Double, _ body: (Double, Double) -> Void) {
        let n = line.normal
        let w = map.width, h = map.height
        let cosLimit = cos(22.5 * .pi / 180)
        let mostlyHorizontal = abs(n.y) >= abs(n.x)
        let major = mostlyHorizontal ? w : h, minorLimit = mostlyHorizontal ? h : w
        let slope = mostlyHorizontal ? n.x / n.y : n.y / n.x
        let base = mostlyHorizontal ? line.rho / n.y : line.rho / n.x
        let reach = radius / max(abs(mostlyHorizontal ? n.y : n.x), 1e-9)
        for a in 0..<major {
            let center = base - slope * Double(a)
            let lo = max(0, Int((center - reach).rounded(.up))), hi = min(minorLimit - 1, Int((center + reach).rounded(.down)))
            guard lo <= hi else { continue }
            for b in lo...hi {
                let (x, y) = mostlyHorizontal ? (a, b) : (b, a)
                let i = y * w + x
                guard map.edges[i] > 0 else { continue }
                if DetectEdges.alignment(map, i, n) >= cosLimit { body(Double(x), Double(y)) }
            }
        }
    }

    /// Fills `line.support`: for each 1-px step along the line, whether an agreeing edge pixel lies
    /// within 1.5 px across it.
    static func measureSupport(_ line: inout DetectedLine, _ map: EdgeMap) {
        let w = map.width, h = map.height
        let span = Int(Double(w + h))
        let n = line.normal
        let cosLimit = cos(22.5 * .pi / 180)
        var prefix = [Int32](repeating: 0, count: 2 * span + 2)
        var running: Int32 = 0
        let (first, last) = visibleRange(line, width: w, height: h, span: span)
        for step in -span...span {
            var hit = false
            if step >= first && step <= last {
                let p = line.point(at: Double(step))
                for s in [-1.5, -1.0, -0.5, 0, 0.5, 1.0, 1.5] {
                    let x = Int((p.x + n.x * s).rounded()), y = Int((p.y + n.y * s).rounded())
                    guard x >= 0 && y >= 0 && x < w && y < h else { continue }
                    let i = y * w + x
                    guard map.edges[i] > 0 else { continue }
                    if DetectEdges.alignment(map, i, n) >= cosLimit { hit = true; break }
                }
            }
            if hit { running += 1 }
            prefix[step + span + 1] = running
        }
        line.support = prefix
        line.tOffset = span + 1
    }
}

extension DetectLines {
    /// Range of 1-px steps along the line that fall inside the image.
    static func visibleRange(_ line: DetectedLine, width w: Int, height h: Int, span: Int) -> (Int, Int) {
        var lo = -Double(span), hi = Double(span)
        let p0 = line.point(at: 0), d = line.direction
        for (origin, delta, limit) in [(p0.x, d.x, Double(w - 1)), (p0.y, d.y, Double(h - 1))] {
            if abs(delta) < 1e-12 {
                if origin < 0 || origin > limit { return (1, 0) }
                continue
            }
            let a = (0 - origin) / delta, b = (limit - origin) / delta
            lo = max(lo, min(a, b))
            hi = min(hi, max(a, b))
        }
        return (Int(lo.rounded(.up)), Int(hi.rounded(.down)))
    }
}
