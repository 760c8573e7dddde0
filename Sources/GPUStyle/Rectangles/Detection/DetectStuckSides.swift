import Foundation

/// Moves out a side left on an inner edge of a frame.
///
/// After `DetectBands` and `DetectFrames`, a side of a wide or nested frame can still sit on the
/// inner edge of its outer moulding while the other three sides are on the outline: the inner
/// edge is the stronger one, and the band between is too wide or has the wrong polarity for a
/// band step. Such a side is recognisable by what lies just outside it: the moulding, which looks
/// like the strips just inside the other sides, not like the wall just outside them
/// (`SideStrips`). It then moves out to the nearest parallel edge beyond which the strip looks
/// like the wall. Measured on six held-out generator seeds (360 pictures), after the band
/// colour check: 300 -> 307 found, no false positives. On two seeds made afterwards, the two
/// checks together: 44 -> 45 and 45 -> 47 of 60.
enum DetectStuckSides {
    typealias Parameters = DetectionParameters.StuckSides

    static func run(_ candidate: QuadCandidate, map: EdgeMap, options: RectangleDetectionOptions, image: Image) -> QuadCandidate {
        var corners = candidate.quad.corners
        let sides = (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }
        let maximumOffset = max(Parameters.minimumReach, Parameters.reach * sides.min()!)
        var moved = false
        for i in 0..<4 {
            let around = SideStrips.others(corners, except: i, from: Parameters.stripNear, to: Parameters.stripFar, map: map, image: image)
            guard around.inside.count == 3, around.outside.count == 3,
                  let beyond = SideStrips.mean(corners, side: i, from: Parameters.stripNear, to: Parameters.stripFar, map: map, image: image),
                  !SideStrips.looksLikeOutside(beyond, inside: around.inside, outside: around.outside),
                  let line = outline(outside: corners, side: i, maximumOffset: maximumOffset, around: around, moulding: beyond, map: map, image: image)
            else { continue }
            let previous = DetectBands.lineThrough(corners[(i + 3) % 4], corners[i])
            let next = DetectBands.lineThrough(corners[(i + 1) % 4], corners[(i + 2) % 4])
            guard let p = previous.intersection(line), let q = line.intersection(next) else { continue }
            var grown = corners
            grown[i] = p
            grown[(i + 1) % 4] = q
            guard DetectQuads.isConvex(grown), DetectQuads.passesGeometry(grown, options: options) else { continue }
            corners = grown
            moved = true
        }
        guard moved else { return candidate }
        return QuadCandidate(quad: Quad(corners: corners),
                             lines: candidate.lines, coverage: candidate.coverage)
    }

    /// The nearest edge outside side i, nearly parallel to it, beyond which the strip looks like
    /// the wall around the other sides, or, on a wall as dark as the moulding, where the
    /// moulding (`moulding`: the strip just outside the stuck side) ends; refitted to its pixels.
    static func outline(outside corners: [Point], side i: Int, maximumOffset: Double,
                        around: (inside: [MeanColour], outside: [MeanColour]), moulding: MeanColour, map: EdgeMap, image: Image) -> DetectedLine? {
        let a = corners[i], b = corners[(i + 1) % 4], n = DetectBands.outward(a, b)
        // The moulding's end counts only when the strip beyond the side is the other sides'
        // moulding and the side is a real boundary (the strip inside it differs): a sudoku grid's
        // side has the same paper on both sides, and its page's edge is not the grid's outline.
        let ownInside = SideStrips.mean(corners, side: i, from: -Parameters.stripFar, to: -Parameters.stripNear, map: map, image: image)
        let isMoulding = around.inside.contains { $0.distance(to: moulding) <= Parameters.sameMoulding }
            && ownInside.map { $0.distance(to: moulding) >= Parameters.leavesMoulding } == true
        let found = OutwardProbe.first(from: a, to: b, offsets: Parameters.firstOffset, through: maximumOffset, minimum: Parameters.minimumCoverage, map: map,
                                       accepts: { map.runsAlong($0, normal: n) }) { probe in
            var moved = corners
            moved[i] = probe.p0
            moved[(i + 1) % 4] = probe.p1
            guard let wall = SideStrips.mean(moved, side: i, from: Parameters.stripNear, to: Parameters.stripFar, map: map, image: image) else { return .skip }
            if SideStrips.looksLikeOutside(wall, inside: around.inside, outside: around.outside) { return .take }
            guard isMoulding, let band = SideStrips.mean(moved, side: i, from: -Parameters.stripFar, to: -Parameters.stripNear, map: map, image: image) else { return .skip }
            return band.distance(to: moulding) <= Parameters.sameMoulding && wall.distance(to: moulding) >= Parameters.leavesMoulding ? .take : .skip
        }
        return found.map { DetectLines.refine(DetectBands.lineThrough($0.p0, $0.p1), map) }
    }
}
