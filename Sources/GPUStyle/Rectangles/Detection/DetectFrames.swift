import Foundation

/// Grows a detected quad to the frame around it. A framed picture gives strong edges at the
/// picture and weaker ones at the frame's outer border (dark frame on a dark wall, a shadow
/// under it); the outer border's lines then rarely make the global Hough shortlist. Starting
/// from a found quad, each side searches outward along its normal for a nearly parallel edge
/// that covers it; when all four sides find one, the quad is replaced by the enclosing one,
/// and the search repeats (a frame inside a frame).
enum DetectFrames {
    typealias Parameters = DetectionParameters.Frames

    /// The enclosing frame's quad, or nil when there is none.
    static func grow(_ candidate: QuadCandidate, map: EdgeMap, options: RectangleDetectionOptions) -> QuadCandidate? {
        var current: QuadCandidate?
        for _ in 0..<Parameters.maximumRings {
            guard let outer = ring(around: current ?? candidate, map: map, options: options) else { break }
            current = outer
        }
        return current
    }

    static func ring(around candidate: QuadCandidate, map: EdgeMap, options: RectangleDetectionOptions) -> QuadCandidate? {
        let c = candidate.quad.corners
        let sides = (0..<4).map { c[$0].distance(to: c[($0 + 1) % 4]) }
        let maximumOffset = max(Parameters.minimumReach, Parameters.reach * min(sides.min()!, sides.max()!))
        var lines: [DetectedLine] = []
        var coverage: [Double] = []
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4]
            guard let (line, cov) = outwardEdge(from: a, to: b, maximumOffset: maximumOffset, map: map) else { return nil }
            lines.append(line)
            coverage.append(cov)
        }
        var corners: [Point] = []
        for i in 0..<4 {
            guard let p = lines[(i + 3) % 4].intersection(lines[i]) else { return nil }
            guard map.holdsCorner(p) else { return nil }
            corners.append(p)
        }
        guard DetectQuads.isConvex(corners) else { return nil }
        let quad = Quad(corners: corners)
        guard quad.area > candidate.quad.area, DetectQuads.passesGeometry(corners, options: options) else { return nil }
        return QuadCandidate(quad: quad, lines: candidate.lines, coverage: coverage)
    }

    /// The nearest edge outside side a→b (the quad is clockwise on screen, so outside is to the
    /// left of a→b in image coordinates) that runs along it, and its coverage of the side.
    static func outwardEdge(from a: Point, to b: Point, maximumOffset: Double, map: EdgeMap) -> (DetectedLine, Double)? {
        let d = (b - a) * (1 / max(a.distance(to: b), 1e-9))
        let outward = Point(x: d.y, y: -d.x)
        var offset = Parameters.firstOffset
        while offset <= maximumOffset {
            for tilt in Parameters.tilts {
                // Tilting pivots the probe line about the side's midpoint, for perspective.
                let direction = Point(x: d.x - d.y * tilt, y: d.y + d.x * tilt)
                let length = direction.length
                let dir = direction * (1 / length)
                let start = a + outward * offset, end = b + outward * offset
                let mid = (start + end) * 0.5
                let half = a.distance(to: b) / 2
                let p0 = mid - dir * half, p1 = mid + dir * half
                let cov = map.sideCoverage(from: p0, to: p1, minimum: Parameters.minimumCoverage)
                if cov >= Parameters.minimumCoverage {
                    let normal = Point(x: -dir.y, y: dir.x)
                    let theta = atan2(normal.y, normal.x)
                    let line = DetectedLine(theta: theta, rho: mid.x * normal.x + mid.y * normal.y, votes: 0)
                    return (DetectLines.refine(line, map), cov)
                }
            }
            offset += 1
        }
        return nil
    }
}
