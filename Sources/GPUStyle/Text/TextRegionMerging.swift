/// Joins the text regions of a photo's detection passes (`TextReader`): the whole-photo pass and
/// the passes over overlapping tiles of it.
///
/// 1. Pieces of one line cut by tile borders: two regions of different tiles that overlap by
///    at least `pieceOverlap` of the smaller one's area and are about as thick (within
///    `thicknessRatio`) are one line; its box is the smallest rectangle around all its pieces.
/// 2. A line both the whole-photo pass and the tiles found is kept once: the whole-photo one,
///    unless it is much thicker than the tile's (`thicknessRatio`: the coarse pass ran lines
///    together that the tiles see apart), when the tiles' lines are kept instead.
enum TextRegionMerging {
    /// Share of the smaller region's area two pieces must overlap by.
    static let pieceOverlap = 0.2
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

    /// Regions of all tiles, pieces of one line joined.
    static func joinPieces(_ tiles: [[TextRegion]]) -> [TextRegion] {
        let all = tiles.enumerated().flatMap { tile, regions in regions.map { (tile: tile, region: $0) } }
        var parent = Array(all.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        let areas = all.map { ConvexOverlap.area($0.region.quad.corners) }
        for i in all.indices {
            for j in (i + 1)..<all.count where all[i].tile != all[j].tile {
                let ti = thickness(all[i].region.quad), tj = thickness(all[j].region.quad)
                guard max(ti, tj) <= thicknessRatio * min(ti, tj) else { continue }
                let shared = ConvexOverlap.intersectionArea(all[i].region.quad.corners, all[j].region.quad.corners)
                if shared >= pieceOverlap * min(areas[i], areas[j]) { parent[root(i)] = root(j) }
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
