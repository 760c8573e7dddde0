import Foundation

/// Moves each side of a found quad out across the frame it belongs to.
///
/// A dark frame gives two parallel edges per side: the inner one (picture or matte against the
/// frame) is usually the stronger, the outer one (frame against the wall, often with a shadow)
/// the weaker, and quads that mix inner and outer sides score as well as the true outline. The
/// outline is the outermost boundary of the bands, and crossing a band flips the edge's polarity
/// (light→dark then dark→light, seen from inside), while a shadow or a texture line beyond the
/// outline keeps the outline's polarity. So each side steps out to the nearest parallel edge of
/// opposite polarity within a frame's width, when the strip between is plain like a frame's
/// moulding. One step: a second one, measured on the committed scenes, gained nothing and let
/// a printed page's text columns pass for bands. Wider nested frames are `DetectFrames`' job.
///
/// A lone side stepping out is the doubtful case: with the other three on the outline already,
/// it crosses wall, not moulding, to a mortar line or a panel seam of opposite polarity. Its
/// step is kept only when the strip it crossed looks like the band just inside the other sides
/// (`SideStrips`). Measured on six held-out generator seeds (360 pictures): 292 -> 300 found,
/// none lost on any seed.
enum DetectBands {
    /// Widest band crossed in one step, as a share of the quad's shorter side.
    static let maximumBand = 0.12
    /// The outer edge's share of the side. 0.5 found one more held-out picture per 60, but moved
    /// sudoku.png's bottom side out to the line under the grid.
    static let minimumCoverage = 0.6
    /// The outer edge's share of a side whose band has the width the other sides' bands have.
    static let sameWidthCoverage = 0.45

    /// `image` is the photo the map was made from, for `crossesFrame`; without it a lone side's
    /// step is taken as found.
    static func pushOut(_ candidate: QuadCandidate, map: EdgeMap, options: RectangleDetectionOptions,
                        image: Image? = nil) -> QuadCandidate {
        let corners = candidate.quad.corners
        let sides = (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }
        let reach = max(3, maximumBand * sides.min()!)
        var lines: [DetectedLine] = []
        var coverage = candidate.coverage
        var offsets = [Double?](repeating: nil, count: 4)
        var polarities = [Double](repeating: 0, count: 4)
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            polarities[i] = DetectBands.polarity(from: a, to: b, map: map)
            if polarities[i] != 0, let found = nextBand(from: a, to: b, polarity: -polarities[i], reach: reach, map: map) {
                lines.append(found.line)
                coverage[i] = found.coverage
                offsets[i] = found.offset
            } else {
                lines.append(lineThrough(a, b))
            }
        }
        let widths = offsets.compactMap { $0 }
        guard !widths.isEmpty else { return candidate }
        if widths.count == 1, let image, let lone = offsets.firstIndex(where: { $0 != nil }),
           !crossesFrame(corners, side: lone, width: widths[0], map: map, image: image) {
            return candidate
        }
        // A moulding has one width all round: once two sides found their band, a side that did
        // not looks again at about that width (0.6-1.6x, perspective) and accepts a fainter outer
        // edge there (a dark frame's outer edge against a busy wall keeps about half its pixels).
        if widths.count >= 2 {
            let first = max(1, (0.6 * widths.min()!).rounded(.down)), last = min(reach, 1.6 * widths.max()! + 1)
            for i in 0..<4 where offsets[i] == nil && polarities[i] != 0 {
                let a = corners[i], b = corners[(i + 1) % 4]
                if let found = nextBand(from: a, to: b, polarity: -polarities[i], reach: last, map: map, from: first,
                                        minimum: sameWidthCoverage) {
                    lines[i] = found.line
                    coverage[i] = found.coverage
                }
            }
        }
        var grown: [Point] = []
        for i in 0..<4 {
            guard let p = lines[(i + 3) % 4].intersection(lines[i]) else { return candidate }
            guard map.holdsCorner(p) else { return candidate }
            grown.append(p)
        }
        guard DetectQuads.isConvex(grown), DetectQuads.passesGeometry(grown, options: options) else { return candidate }
        let quad = Quad(corners: grown)
        guard quad.area >= candidate.quad.area else { return candidate }
        return QuadCandidate(quad: quad, lines: candidate.lines, coverage: coverage)
    }

    /// Whether the strip that side `lone` crossed, `width` px deep, looks like what lies just
    /// inside the other sides (a frame's moulding) rather than just outside them (the wall).
    static func crossesFrame(_ corners: [Point], side lone: Int, width: Double, map: EdgeMap, image: Image) -> Bool {
        let d0 = 0.3 * width, d1 = max(d0, 0.7 * width)
        guard let crossed = SideStrips.mean(corners, side: lone, from: d0, to: d1, map: map, image: image) else { return true }
        let around = SideStrips.others(corners, except: lone, from: d0, to: d1, map: map, image: image)
        return !SideStrips.looksLikeOutside(crossed, inside: around.inside, outside: around.outside)
    }

    /// Outward normal of side a→b of a clockwise (on screen) quad.
    static func outward(_ a: Point, _ b: Point) -> Point {
        let d = (b - a) * (1 / max(a.distance(to: b), 1e-9))
        return Point(x: d.y, y: -d.x)
    }

    static func lineThrough(_ a: Point, _ b: Point) -> DetectedLine {
        let n = outward(a, b)
        return DetectedLine(theta: atan2(n.y, n.x), rho: a.x * n.x + a.y * n.y, votes: 0)
    }

    /// +1 when the edge along a→b gets brighter going outward, −1 when darker, 0 when unclear.
    static func polarity(from a: Point, to b: Point, map: EdgeMap) -> Double {
        let n = outward(a, b)
        var sum = 0.0
        forEachStep(from: a, to: b, map: map) { p in
            var best = 0.0
            for s in [-1.0, -0.5, 0, 0.5, 1.0] {
                guard let i = map.index(p + n * s), map.edges[i] > 0 else { continue }
                let g = Double(map.gx[i]) * n.x + Double(map.gy[i]) * n.y
                if abs(g) > abs(best) { best = g }
            }
            sum += best
        }
        return sum > 0 ? 1 : (sum < 0 ? -1 : 0)
    }

    /// The nearest edge outside a→b, nearly parallel to it and of the given polarity, covering at
    /// least `minimumCoverage` of the side; refitted to its own pixels.
    static func nextBand(from a: Point, to b: Point, polarity: Double, reach: Double, map: EdgeMap,
                         from first: Double = 1, minimum: Double = minimumCoverage) -> (line: DetectedLine, coverage: Double, offset: Double)? {
        let n = outward(a, b)
        let found = OutwardProbe.first(from: a, to: b, offsets: first, through: reach, minimum: minimum, map: map,
                                       accepts: { agrees(map, $0, n, polarity) }) { probe in
            // Text or picture detail between the two edges: not a frame, and no edge farther out
            // is one either.
            isPlain(from: a, to: b, normal: n, depth: probe.offset, map: map) ? .take : .stop
        }
        guard let found else { return nil }
        return (fit(lineThrough(found.p0, found.p1), polarity: polarity, map: map), found.coverage, found.offset)
    }

    /// Whether the strip between side a→b and the edge `depth` px outside it is plain, like a
    /// frame's moulding: its mean gradient is under half the gradient at its two borders. Wood
    /// grain passes; printed text and picture content mostly do not.
    static func isPlain(from a: Point, to b: Point, normal n: Point, depth: Double, map: EdgeMap) -> Bool {
        guard depth >= 4 else { return true }
        var inside = 0.0, insideCount = 0.0, border = 0.0, borderCount = 0.0
        forEachStep(from: a, to: b, map: map) { p in
            var s = 2.0
            while s <= depth - 2 {
                if let i = map.index(p + n * s) { inside += Double(map.magnitude[i]); insideCount += 1 }
                s += 1
            }
            for s in [0.0, depth] {
                var strongest: Float = 0
                for ds in [-1.0, 0, 1.0] {
                    if let i = map.index(p + n * (s + ds)) { strongest = max(strongest, map.magnitude[i]) }
                }
                border += Double(strongest)
                borderCount += 1
            }
        }
        guard insideCount > 0, borderCount > 0 else { return true }
        return inside / insideCount < (border / borderCount) / 2
    }

    /// Total-least-squares line through the agreeing edge pixels within 1.5 px of `line`.
    static func fit(_ line: DetectedLine, polarity: Double, map: EdgeMap) -> DetectedLine {
        let n = line.normal
        var moments = LineMoments()
        DetectLines.forEachSupportingPixel(line, map, radius: 1.5) { x, y in
            if agrees(map, Int(y) * map.width + Int(x), n, polarity) { moments.add(x, y) }
        }
        return moments.line(facing: line, votes: 0) ?? line
    }

    /// An edge pixel whose gradient is within 22.5° of ±n and points along n·polarity.
    @inline(__always)
    static func agrees(_ map: EdgeMap, _ i: Int, _ n: Point, _ polarity: Double) -> Bool {
        map.runsAlong(i, normal: n) && (Double(map.gx[i]) * n.x + Double(map.gy[i]) * n.y) * polarity > 0
    }

    /// Calls `body` at 1-px steps along a→b, skipping 8% at each end (rounded frame corners,
    /// neighbouring sides' edges).
    static func forEachStep(from a: Point, to b: Point, map: EdgeMap, _ body: (Point) -> Void) {
        let length = a.distance(to: b)
        guard length > 4 else { return }
        let d = (b - a) * (1 / length)
        var t = 0.08 * length
        while t <= 0.92 * length {
            body(a + d * t)
            t += 1
        }
    }
}

extension EdgeMap {
    /// Share of 1-px steps along p0→p1, trimmed 8% at each end (rounded frame corners,
    /// neighbouring sides' edges), with a pixel that `accepts` within a pixel across (along n);
    /// 0 as soon as the share cannot reach `minimum` (most probes cross bare wall).
    @inline(__always)
    func coverage(from p0: Point, to p1: Point, across n: Point, minimum: Double, accepts: (Int) -> Bool) -> Double {
        let length = p0.distance(to: p1)
        guard length > 4 else { return 0 }
        let d = (p1 - p0) * (1 / length)
        let first = 0.08 * length, steps = Int((0.84 * length).rounded(.down)) + 1
        let allowedMisses = Int((1 - minimum) * Double(steps))
        var hits = 0, misses = 0
        for k in 0..<steps {
            let p = p0 + d * (first + Double(k))
            var hit = false
            for s in [0, -0.5, 0.5, -1.0, 1.0] {
                if let i = index(p + n * s), accepts(i) { hit = true; break }
            }
            if hit { hits += 1 } else { misses += 1 }
            if misses > allowedMisses { return 0 }
        }
        return Double(hits) / Double(steps)
    }

    /// Index of the pixel nearest to p, nil outside the map.
    @inline(__always)
    func index(_ p: Point) -> Int? {
        let x = nearestInt(p.x), y = nearestInt(p.y)
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        return y * width + x
    }
}
