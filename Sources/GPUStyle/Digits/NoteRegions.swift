/// Notes found as regions of one plain colour, a second source of candidates beside the
/// rectangle detector. The detector works from edges: on a wooden desk the grain's edges outnumber
/// a note's four sides and it finds 29 % of the notes of tools/make_note_scenes.py's seed 4001
/// (95 % on walls). A note is also a patch of nearly constant colour with a sharp border, which
/// wood grain is not; so: average the photo down, join neighbouring pixels of nearly the same
/// colour, and keep the regions whose convex hull is a quadrilateral they nearly fill. Each is
/// then refined on the full-resolution photo by the detector's sub-pixel side fit.
enum NoteRegions {
    struct Parameters: Sendable {
        /// The photo is averaged down by a whole factor to about this longer side: a note at the
        /// smallest size `digits` looks for (a 20th of a 720p photo's height, 36 px) keeps 13 px.
        var workingSide = 480
        /// Neighbours join when no channel differs by more than this (sRGB, 0-1) after a 3x3 box
        /// blur: above JPEG noise and paper grain, below a note's border (0.15 or more a pixel).
        var joinStep: Float = 0.035
        /// ...and their regions' mean colours by at most this: a note's paper under a shading
        /// ramp stays one region, while a blurred border (a note on a desk of a near hue) no
        /// longer chains the two into one.
        var meanStep: Float = 0.12
        /// The region must fill its convex hull to at least this fraction (the ink inside is not
        /// part of it: a marker digit takes up to 15 %).
        var minimumSolidity = 0.7
        /// The hull's area over the quadrilateral fitted to it: a curled corner cuts a little
        /// off, a rounded blob much more.
        var quadFill = 0.9...1.15
        /// Largest region, as a fraction of the photo: larger ones are walls and desks.
        var maximumArea = 0.25
        /// The sub-pixel side fit searches this many working pixels either side of a side.
        var refineRadius = 1.5
    }

    /// Quads of plain-coloured regions that pass `options`' shape limits, in the photo's pixels,
    /// largest first.
    static func candidates(_ image: Image, options: RectangleDetectionOptions, parameters: Parameters = Parameters()) -> [Quad] {
        let factor = max(1, Int((Double(max(image.width, image.height)) / Double(parameters.workingSide)).rounded(.up)))
        let w = image.width / factor, h = image.height / factor
        guard w >= 8, h >= 8 else { return [] }
        let small = averaged(image, factor: factor, width: w, height: h)
        // Two passes: as averaged (a soft border between a note and a desk of a near colour
        // stays closed), and blurred 3x3 (phone noise and grain no longer break a note's paper
        // into pieces). On development seed 4001 each pass alone finds notes the other misses.
        var found: [(quad: Quad, area: Double)] = []
        for colours in [small, blurred(small, width: w, height: h)] {
            found += quads(regions(colours, width: w, height: h, step: parameters.joinStep, meanStep: parameters.meanStep), image: image, factor: factor,
                           width: w, height: h, options: options, parameters: parameters)
        }
        return found.sorted { $0.area > $1.area }.map(\.quad)
    }

    /// The quads of `labels`' regions that look like notes (see `candidates`).
    static func quads(_ labels: [Int], image: Image, factor: Int, width w: Int, height h: Int, options: RectangleDetectionOptions,
                      parameters: Parameters) -> [(quad: Quad, area: Double)] {
        var pixels: [Int: [Int]] = [:]
        for (i, label) in labels.enumerated() { pixels[label, default: []].append(i) }
        let shorter = Double(min(w, h))
        let minimumSide = options.minimumSize * shorter
        // A square note of the smallest side, seen at 60 degrees, covers half its area.
        let minimumArea = max(16, 0.5 * minimumSide * minimumSide)
        let maximumArea = parameters.maximumArea * Double(w * h)
        var found: [(quad: Quad, area: Double)] = []
        for (_, members) in pixels where Double(members.count) >= minimumArea && Double(members.count) <= maximumArea {
            let points = members.map { Point(x: Double($0 % w), y: Double($0 / w)) }
            let hull = convexHull(points)
            let hullArea = polygonArea(hull) + perimeter(hull) / 2 + 1  // pixel centres: add the outer half pixel
            guard hullArea > 0, Double(members.count) / hullArea >= parameters.minimumSolidity,
                  let coarse = quadrilateral(hull) else { continue }
            let fill = hullArea / (coarse.area + perimeter(coarse.corners) / 2 + 1)
            guard parameters.quadFill.contains(fill) else { continue }
            let offset = Double(factor - 1) / 2
            let full = Quad(corners: coarse.corners.map { Point(x: $0.x * Double(factor) + offset, y: $0.y * Double(factor) + offset) })
            let refined = DetectRefine.run(full, image: image, searchRadius: parameters.refineRadius * Double(factor)).canonicalized()
            guard refined.area > 0, passes(refined, options: options, shorter: Double(min(image.width, image.height))) else { continue }
            found.append((refined, refined.area))
        }
        return found
    }

    /// Vision's shape limits: size, then the detector's side-ratio and corner-angle gates.
    static func passes(_ quad: Quad, options: RectangleDetectionOptions, shorter: Double) -> Bool {
        let c = quad.corners
        let sides = (0..<4).map { c[$0].distance(to: c[($0 + 1) % 4]) }
        let width = (sides[0] + sides[2]) / 2, height = (sides[1] + sides[3]) / 2
        return min(width, height) >= options.minimumSize * shorter && DetectQuads.passesGeometry(c, options: options)
    }

    /// Planar RGB averaged over `factor` x `factor` blocks.
    static func averaged(_ image: Image, factor: Int, width w: Int, height h: Int) -> [Float] {
        let plane = image.pixelCount, scale = 1 / Float(factor * factor)
        var out = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 { for y in 0..<h { for x in 0..<w {
            var sum: Float = 0
            for dy in 0..<factor { for dx in 0..<factor { sum += image.rgb[c * plane + (y * factor + dy) * image.width + x * factor + dx] } }
            out[c * w * h + y * w + x] = sum * scale
        } } }
        return out
    }

    /// 3x3 box blur per channel (edges clamped).
    static func blurred(_ rgb: [Float], width w: Int, height h: Int) -> [Float] {
        var out = rgb
        for c in 0..<3 { for y in 0..<h { for x in 0..<w {
            var sum: Float = 0
            for dy in -1...1 { for dx in -1...1 {
                sum += rgb[c * w * h + min(h - 1, max(0, y + dy)) * w + min(w - 1, max(0, x + dx))]
            } }
            out[c * w * h + y * w + x] = sum / 9
        } } }
        return out
    }

    /// A region label per pixel: 4-neighbours join when every channel differs by < `step` and
    /// their regions' mean colours by < `meanStep` (small steps alone chain across a soft border).
    static func regions(_ rgb: [Float], width w: Int, height h: Int, step: Float, meanStep: Float) -> [Int] {
        let n = w * h
        var parent = Array(0..<n)
        var sums = (0..<n).map { [rgb[$0], rgb[n + $0], rgb[2 * n + $0]] }
        var counts = [Float](repeating: 1, count: n)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        func close(_ a: Int, _ b: Int) -> Bool {
            abs(rgb[a] - rgb[b]) < step && abs(rgb[n + a] - rgb[n + b]) < step && abs(rgb[2 * n + a] - rgb[2 * n + b]) < step
        }
        for y in 0..<h { for x in 0..<w {
            let i = y * w + x
            for j in [x + 1 < w ? i + 1 : -1, y + 1 < h ? i + w : -1] where j >= 0 && close(i, j) {
                let a = find(i), b = find(j)
                guard a != b, (0..<3).allSatisfy({ abs(sums[a][$0] / counts[a] - sums[b][$0] / counts[b]) < meanStep }) else { continue }
                let (root, child) = (min(a, b), max(a, b))
                parent[child] = root
                for c in 0..<3 { sums[root][c] += sums[child][c] }
                counts[root] += counts[child]
            }
        } }
        return (0..<n).map(find)
    }

    /// Andrew's monotone chain; clockwise on screen (y down).
    static func convexHull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    static func polygonArea(_ p: [Point]) -> Double {
        guard p.count >= 3 else { return 0 }
        var sum = 0.0
        for i in p.indices { let a = p[i], b = p[(i + 1) % p.count]; sum += a.x * b.y - b.x * a.y }
        return abs(sum) / 2
    }

    static func perimeter(_ p: [Point]) -> Double {
        guard p.count >= 2 else { return 0 }
        return p.indices.reduce(0) { $0 + p[$1].distance(to: p[($1 + 1) % p.count]) }
    }

    /// The largest-area quadrilateral with corners on the hull, found from the hull's two most
    /// distant points (a diagonal) and the points farthest from it on either side; nil when the
    /// hull is degenerate.
    static func quadrilateral(_ hull: [Point]) -> Quad? {
        guard hull.count >= 4 else { return nil }
        var best = (0, 0, -1.0)
        for i in hull.indices { for j in (i + 1)..<hull.count {
            let d = hull[i].distance(to: hull[j])
            if d > best.2 { best = (i, j, d) }
        } }
        let a = hull[best.0], c = hull[best.1]
        func side(_ p: Point) -> Double { (c.x - a.x) * (p.y - a.y) - (c.y - a.y) * (p.x - a.x) }
        guard let b = hull.max(by: { side($0) < side($1) }), let d = hull.min(by: { side($0) < side($1) }),
              side(b) > 0, side(d) < 0 else { return nil }
        let quad = Quad(corners: [a, b, c, d])
        return (quad.area < 0 ? Quad(corners: [a, d, c, b]) : quad).canonicalized()
    }
}
