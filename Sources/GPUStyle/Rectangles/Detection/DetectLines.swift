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
        let a = nearestInt(min(t0, t1)) + tOffset, b = nearestInt(max(t0, t1)) + tOffset
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

/// Running moments of pixel positions, for a total-least-squares line fit.
struct LineMoments {
    private var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0, n = 0.0

    mutating func add(_ x: Double, _ y: Double) {
        sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y; n += 1
    }

    mutating func add(_ other: LineMoments) {
        sx += other.sx; sy += other.sy; sxx += other.sxx; syy += other.syy; sxy += other.sxy; n += other.n
    }

    /// Mean and scatter matrix (cxx, cyy, cxy) of the points.
    private var centred: (mx: Double, my: Double, cxx: Double, cyy: Double, cxy: Double) {
        let mx = sx / n, my = sy / n
        return (mx, my, sxx / n - mx * mx, syy / n - my * my, sxy / n - mx * my)
    }

    /// Root-mean-square distance of the points from their fitted line.
    var spread: Double {
        guard n > 0 else { return 0 }
        let (_, _, cxx, cyy, cxy) = centred
        let half = 0.5 * (cxx - cyy)
        return max(0, 0.5 * (cxx + cyy) - (half * half + cxy * cxy).squareRoot()).squareRoot()
    }

    /// The fitted line in the (θ, ρ) form facing like `reference` (the same line has two), or
    /// nil with fewer than 8 points.
    func line(facing reference: DetectedLine, votes: Int) -> DetectedLine? {
        guard n >= 8 else { return nil }
        let (mx, my, cxx, cyy, cxy) = centred
        // The normal is the eigenvector of the smaller eigenvalue of the scatter matrix.
        let angle = 0.5 * atan2(2 * cxy, cxx - cyy)  // direction of the larger eigenvalue
        var theta = angle + .pi / 2
        var rho = mx * cos(theta) + my * sin(theta)
        if cos(theta - reference.theta) < 0 { theta += .pi; rho = -rho }
        return DetectedLine(theta: theta, rho: rho, votes: votes)
    }
}

/// Orientation-constrained Hough transform: each strong edge pixel votes only for line angles
/// near its own gradient direction, which keeps voting cheap and peaks sharp.
///
/// Lines come in groups: the strongest lines of the whole image, and the strongest lines of each
/// of 3 x 3 overlapping half-size windows. A small picture on a busy wall (bricks, a crowd) has
/// short sides that lose a global vote to the wall's long lines, but win in the windows that
/// contain it; quads are formed within each group (`DetectQuads`), so the windows add few
/// hypotheses. A last group holds the lines of the longest edge segments (`DetectSegments`):
/// votes count contrast, segments count continuity. Lines shared by several groups are fitted
/// and measured once.
enum DetectLines {
    typealias Parameters = DetectionParameters.Lines

    /// The pixels that vote: a window of the edge map.
    struct Region {
        var x: Range<Int>
        var y: Range<Int>
    }

    struct Peak {
        var votes: Int32
        var theta: Int
        /// ρ in pixels, relative to the image origin.
        var rho: Int
        var key: Int { theta << 32 | (rho & 0xFFFF_FFFF) }
    }

    /// The votes a Hough peak needs on `map` with `options`.
    static func minimumVotes(_ map: EdgeMap, options: RectangleDetectionOptions) -> Int {
        max(Parameters.minimumVotes, Int(Parameters.votesPerSide * DetectQuads.minimumSide(map, options: options)))
    }

    /// Lines taken from group k (0: the whole image, then the windows).
    static func quota(_ k: Int) -> Int { k == 0 ? Parameters.globalLines : Parameters.windowLines }
    /// Lines taken from region k for the corner walk (`DetectCorners`), which needs no groups.
    static func cornerQuota(_ k: Int) -> Int { Parameters.cornerQuotaFactor * quota(k) }

    struct Groups {
        var lines: [DetectedLine] = []
        /// Indices into `lines`: the global group first, then one per window, then the segments'.
        var members: [[Int]] = []
        /// Edge segments, longest first (`DetectSegments`).
        var segments: [DetectSegments.Segment] = []

        /// Index of `line` in `lines`, appended unless an existing one is the same line
        /// (neighbouring peaks and segments often converge on one edge, and duplicates would
        /// only multiply the quad hypotheses).
        mutating func index(of line: DetectedLine) -> Int {
            if let same = lines.firstIndex(where: { DetectLines.isSame($0, line) }) { return same }
            lines.append(line)
            return lines.count - 1
        }
    }

    static func groups(_ map: EdgeMap, minimumVotes: Int) -> Groups {
        let regions = votingRegions(width: map.width, height: map.height)
        var peakLists = [[Peak]](repeating: [], count: regions.count)
        var segments: [DetectSegments.Segment] = []
        // The segments (one sequential task, the longest) run beside the regions' votes; task 0
        // so that it gets a chunk of its own.
        peakLists.withUnsafeMutableBufferPointer { lists in
            ParallelFor.ranges(regions.count + 1) { range in
                for task in range {
                    if task == 0 {
                        segments = DetectSegments.find(map, minimumLength: Double(minimumVotes))
                    } else {
                        lists[task - 1] = peaks(map, minimumVotes: minimumVotes, region: regions[task - 1])
                    }
                }
            }
        }
        let refitted = refitLikely(peakLists, map)
        var groups = Groups()
        var lineOfPeak: [Int: Int] = [:]
        for (k, list) in peakLists.enumerated() {
            var members: [Int] = []
            for peak in list where members.count < quota(k) {
                let index: Int
                if let known = lineOfPeak[peak.key] {
                    index = known
                } else {
                    index = groups.index(of: refitted[peak.key] ?? refine(DetectLines.line(of: peak), map))
                    lineOfPeak[peak.key] = index
                }
                if !members.contains(index) { members.append(index) }
            }
            groups.members.append(members)
        }
        groups.segments = segments
        addSegmentGroup(&groups)
        // Further lines for the corner walk only (`Groups.lines` beyond the groups' members).
        for (k, list) in peakLists.enumerated() {
            for peak in list.prefix(cornerQuota(k)) where lineOfPeak[peak.key] == nil {
                lineOfPeak[peak.key] = groups.index(of: refitted[peak.key] ?? refine(DetectLines.line(of: peak), map))
            }
        }
        for segment in groups.segments.prefix(Parameters.cornerQuotaFactor * Parameters.segmentGroupLines) { _ = groups.index(of: segment.line) }
        groups.lines.withUnsafeMutableBufferPointer { lines in
            ParallelFor.ranges(lines.count, grain: 4) { range in
                for i in range { measureSupport(&lines[i], map) }
            }
        }
        return groups
    }

    static func line(of peak: Peak) -> DetectedLine {
        DetectedLine(theta: Double(peak.theta) * .pi / Double(Parameters.thetaBins), rho: Double(peak.rho), votes: Int(peak.votes))
    }

    /// The whole map, then 3 x 3 half-size windows overlapping by half.
    static func votingRegions(width w: Int, height h: Int) -> [Region] {
        var regions = [Region(x: 0..<w, y: 0..<h)]
        for j in 0..<3 {
            for i in 0..<3 {
                regions.append(Region(x: (i * w / 4)..<((i + 2) * w / 4), y: (j * h / 4)..<((j + 2) * h / 4)))
            }
        }
        return regions
    }

    /// The peaks each group will most likely use (its first `quota`), refitted in parallel and
    /// keyed by `Peak.key`; further ones (when several peaks converge on one line) are refitted
    /// when a group first needs them.
    static func refitLikely(_ peakLists: [[Peak]], _ map: EdgeMap) -> [Int: DetectedLine] {
        var seen = Set<Int>()
        var likely: [Peak] = []
        for (k, list) in peakLists.enumerated() {
            for peak in list.prefix(cornerQuota(k)) where seen.insert(peak.key).inserted { likely.append(peak) }
        }
        var lines = [DetectedLine](repeating: DetectedLine(theta: 0, rho: 0, votes: 0), count: likely.count)
        lines.withUnsafeMutableBufferPointer { lines in
            ParallelFor.ranges(likely.count, grain: 4) { range in
                for i in range { lines[i] = refine(line(of: likely[i]), map) }
            }
        }
        return Dictionary(uniqueKeysWithValues: zip(likely.map(\.key), lines))
    }

    static func isSame(_ a: DetectedLine, _ b: DetectedLine) -> Bool {
        abs(sin(a.theta - b.theta)) < sin(1.0 * .pi / 180) && abs(a.rho - b.rho * cos(a.theta - b.theta)) < 1.0
    }

    /// Hough peaks of the edge pixels in `region`, strongest first. Votes are counted over three
    /// ρ bins (a line between bin centres splits its pixels), and a peak is a maximum over a
    /// 3 x 5 (θ x ρ) window: a frame's border and a nearby line of text can be a few pixels apart.
    static func peaks(_ map: EdgeMap, minimumVotes: Int, region: Region) -> [Peak] {
        let w = map.width
        let x0 = region.x.lowerBound, y0 = region.y.lowerBound
        let rw = region.x.count, rh = region.y.count
        // ρ relative to the region's corner keeps the accumulator as small as the region.
        let diagonal = Int((Double(rw * rw + rh * rh)).squareRoot()) + 2
        let rhoBins = 2 * diagonal + 1
        let cosines = (0..<Parameters.thetaBins).map { Float(cos(Double($0) * .pi / Double(Parameters.thetaBins))) }
        let sines = (0..<Parameters.thetaBins).map { Float(sin(Double($0) * .pi / Double(Parameters.thetaBins))) }
        var counts = [Int32](repeating: 0, count: Parameters.thetaBins * rhoBins)
        counts.withUnsafeMutableBufferPointer { acc in
            for y in region.y {
                for x in region.x {
                    let i = y * w + x
                    guard map.edges[i] >= map.strongThreshold, map.edges[i] > 0 else { continue }
                    var angle = atan2f(map.gy[i], map.gx[i])
                    if angle < 0 { angle += .pi }
                    let center = nearestInt(angle * Float(Parameters.thetaBins) / .pi)
                    let fx = Float(x - x0), fy = Float(y - y0)
                    for d in -Parameters.voteSpread...Parameters.voteSpread {
                        var t = center + d
                        if t < 0 { t += Parameters.thetaBins } else if t >= Parameters.thetaBins { t -= Parameters.thetaBins }
                        let rho = nearestInt(fx * cosines[t] + fy * sines[t]) + diagonal
                        acc[t * rhoBins + rho] += 1
                    }
                }
            }
        }
        var smoothed = [Int32](repeating: 0, count: Parameters.thetaBins * rhoBins)
        for t in 0..<Parameters.thetaBins {
            let row = t * rhoBins
            for r in 1..<(rhoBins - 1) { smoothed[row + r] = counts[row + r - 1] + counts[row + r] + counts[row + r + 1] }
        }
        var found: [Peak] = []
        let threshold = Int32(minimumVotes)
        for t in 0..<Parameters.thetaBins {
            for r in 0..<rhoBins {
                let v = smoothed[t * rhoBins + r]
                guard v >= threshold else { continue }
                var isPeak = true
                search: for dt in -1...1 {
                    let tt = (t + dt + Parameters.thetaBins) % Parameters.thetaBins
                    // Across θ = 0/180° the same line has the opposite ρ.
                    let wraps = t + dt < 0 || t + dt >= Parameters.thetaBins
                    for dr in -2...2 where dt != 0 || dr != 0 {
                        let rr = wraps ? 2 * diagonal - (r + dr) : r + dr
                        guard rr >= 0 && rr < rhoBins else { continue }
                        let u = smoothed[tt * rhoBins + rr]
                        if u > v || (u == v && (dt, dr) < (0, 0)) { isPeak = false; break search }
                    }
                }
                guard isPeak else { continue }
                let theta = Double(t) * .pi / Double(Parameters.thetaBins)
                let rho = Double(r - diagonal) + Double(x0) * cos(theta) + Double(y0) * sin(theta)
                found.append(Peak(votes: v, theta: t, rho: Int(rho.rounded())))
            }
        }
        return found.sorted { $0.votes > $1.votes }
    }

    /// Least-squares fit (total least squares) to the edge pixels near the Hough line whose
    /// gradient agrees with it: Hough bins are 1° and 1 px, too coarse for long sides.
    static func refine(_ line: DetectedLine, _ map: EdgeMap) -> DetectedLine {
        var current = line
        for radius in [2.0, 1.2] {
            var moments = LineMoments()
            forEachSupportingPixel(current, map, radius: radius) { x, y in moments.add(x, y) }
            guard let fitted = moments.line(facing: current, votes: line.votes) else { return current }
            current = fitted
        }
        return current
    }

    /// Calls `body` once for each edge pixel within `radius` of the line whose gradient is within
    /// 22.5° of the line's normal (either sign). Walks the line's major axis pixel by pixel.
    static func forEachSupportingPixel(_ line: DetectedLine, _ map: EdgeMap, radius: Double, _ body: (Double, Double) -> Void) {
        let n = line.normal
        let w = map.width, h = map.height
        let mostlyHorizontal = abs(n.y) >= abs(n.x)
        let major = mostlyHorizontal ? w : h, minorLimit = mostlyHorizontal ? h : w
        let slope = mostlyHorizontal ? n.x / n.y : n.y / n.x
        let base = mostlyHorizontal ? line.rho / n.y : line.rho / n.x
        let reach = radius / max(abs(mostlyHorizontal ? n.y : n.x), 1e-9)
        map.withPixels { pixels in
            for a in 0..<major {
                let center = base - slope * Double(a)
                let lo = max(0, ceilInt(center - reach)), hi = min(minorLimit - 1, floorInt(center + reach))
                guard lo <= hi else { continue }
                for b in lo...hi {
                    let (x, y) = mostlyHorizontal ? (a, b) : (b, a)
                    if pixels.runsAlong(y * w + x, normal: n) { body(Double(x), Double(y)) }
                }
            }
        }
    }

    /// Fills `line.support`: for each 1-px step along the line, whether an agreeing edge pixel lies
    /// within 1.5 px across it.
    static func measureSupport(_ line: inout DetectedLine, _ map: EdgeMap) {
        let w = map.width, h = map.height
        let span = Int(Double(w + h))
        let n = line.normal
        var prefix = [Int32](repeating: 0, count: 2 * span + 2)
        let (first, last) = visibleRange(line, width: w, height: h, span: span)
        // Offsets across the line; a probe that rounds to the pixel the one before it checked
        // is skipped (the same answer: about half of them at 1-px pixels).
        let offsets: [Double] = [-1.5, -1.0, -0.5, 0, 0.5, 1.0, 1.5]
        map.withPixels { pixels in
            prefix.withUnsafeMutableBufferPointer { prefix in
                var running: Int32 = 0
                for step in -span...span {
                    if step >= first && step <= last {
                        let p = line.point(at: Double(step))
                        var previous = -1
                        for s in offsets {
                            let x = nearestInt(p.x + n.x * s), y = nearestInt(p.y + n.y * s)
                            guard x >= 0 && y >= 0 && x < w && y < h else { continue }
                            let i = y * w + x
                            if i == previous { continue }
                            previous = i
                            if pixels.runsAlong(i, normal: n) {
                                running += 1
                                break
                            }
                        }
                    }
                    prefix[step + span + 1] = running
                }
            }
        }
        line.support = prefix
        line.tOffset = span + 1
    }
}

extension DetectLines {

    /// One more group: the lines of the longest segments (`DetectSegments`).
    static func addSegmentGroup(_ groups: inout Groups) {
        var members: [Int] = []
        for segment in groups.segments.prefix(Parameters.segmentGroupLines) {
            let index = groups.index(of: segment.line)
            if !members.contains(index) { members.append(index) }
        }
        groups.members.append(members)
    }

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
        return (ceilInt(lo), floorInt(hi))
    }
}
