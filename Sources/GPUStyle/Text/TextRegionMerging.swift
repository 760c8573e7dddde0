/// Joins the text regions of a photo's detection passes (`TextReader`): the whole-photo pass and
/// the passes over overlapping tiles of it.
///
/// 1. Pieces of one line cut by tile borders: two regions of different tiles that lie on one
///    line (directions within `pieceAngle`, centre lines within `pieceOffset` of their
///    thickness), touch or overlap along it (a gap of at most `pieceGap` thicknesses) and are
///    about as thick (within `thicknessRatio`) are one line; its box is the smallest rectangle
///    around all its pieces. Overlap of area alone is not enough: the grown boxes of a
///    document's neighbouring rows overlap (15-px rows 30 px apart grow to 37 px), and joining
///    by area read two rows as one on a 12 MP page.
/// 2. A line both the whole-photo pass and the tiles found is kept once: the whole-photo one,
///    unless it is much thicker than the tile's (`thicknessRatio`: the coarse pass ran lines
///    together that the tiles see apart), when the tiles' lines are kept instead.
enum TextRegionMerging {
    /// Pieces of one line: largest angle between their directions (sine), largest distance
    /// between their centre lines and largest gap along the line (both in line thicknesses).
    static let pieceAngle = 0.09  // about 5 degrees
    static let pieceOffset = 0.3
    static let pieceGap = 0.5
    /// Share of a tile region's area a whole-photo region must cover to be the same line.
    static let duplicateOverlap = 0.5
    /// Thickness ratio (larger / smaller) within which two regions are the same line.
    static let thicknessRatio = 1.6

    static func thickness(_ q: Quad) -> Double {
        (q.topLeft.distance(to: q.bottomLeft) + q.topRight.distance(to: q.bottomRight)) / 2
    }

    static func merge(coarse: [TextRegion], tiles: [[TextRegion]]) -> [TextRegion] {
        let fine = joinPieces(tiles)
        var dropCoarse = Set<Int>()
        var keptFine: [TextRegion] = []
        for region in fine {
            let corners = region.quad.corners
            let area = ConvexOverlap.area(corners)
            guard area > 0 else { continue }
            var duplicate = false
            for (index, c) in coarse.enumerated() {
                let shared = ConvexOverlap.intersectionArea(corners, c.quad.corners)
                guard shared >= duplicateOverlap * area else { continue }
                if thickness(c.quad) > thicknessRatio * thickness(region.quad) {
                    dropCoarse.insert(index)
                } else {
                    duplicate = true
                }
            }
            if !duplicate { keptFine.append(region) }
        }
        return coarse.indices.filter { !dropCoarse.contains($0) }.map { coarse[$0] } + keptFine
    }

    /// Whether two regions are pieces of one line (the rules above).
    static func sameLine(_ a: Quad, _ b: Quad) -> Bool {
        let ta = thickness(a), tb = thickness(b)
        guard min(ta, tb) > 0, max(ta, tb) <= thicknessRatio * min(ta, tb) else { return false }
        func direction(_ q: Quad) -> Point {
            let d = (q.topRight - q.topLeft) + (q.bottomRight - q.bottomLeft)
            return d * (1 / max(d.length, 1e-9))
        }
        let u = direction(a), v = direction(b)
        let dot = u.x * v.x + u.y * v.y
        guard dot > 0, abs(u.x * v.y - u.y * v.x) <= pieceAngle else { return false }
        let ca = Point.mean(a.corners), cb = Point.mean(b.corners)
        let offset = cb - ca
        let thick = max(ta, tb)
        guard abs(u.x * offset.y - u.y * offset.x) <= pieceOffset * thick else { return false }
        // Along the line: each piece's extent as an interval of the projection on u.
        func interval(_ q: Quad) -> (Double, Double) {
            let p = q.corners.map { ($0 - ca).x * u.x + ($0 - ca).y * u.y }
            return (p.min()!, p.max()!)
        }
        let (a0, a1) = interval(a), (b0, b1) = interval(b)
        return max(a0, b0) - min(a1, b1) <= pieceGap * thick
    }

    /// Regions of all tiles, pieces of one line joined.
    static func joinPieces(_ tiles: [[TextRegion]]) -> [TextRegion] {
        let all = tiles.enumerated().flatMap { tile, regions in regions.map { (tile: tile, region: $0) } }
        var parent = Array(all.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in all.indices {
            for j in (i + 1)..<all.count where all[i].tile != all[j].tile {
                if sameLine(all[i].region.quad, all[j].region.quad) { parent[root(i)] = root(j) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in all.indices { groups[root(i), default: []].append(i) }
        return groups.keys.sorted().compactMap { key in
            let members = groups[key]!
            if members.count == 1 { return all[members[0]].region }
            let points = members.flatMap { all[$0].region.quad.corners }
            guard let rectangle = MinimumAreaRectangle(hull: ConvexHull.hull(points)) else { return nil }
            let score = members.map { all[$0].region.score }.max() ?? 0
            return TextRegion(quad: TextReadingOrder.quad(rectangle), score: score)
        }
    }
}
