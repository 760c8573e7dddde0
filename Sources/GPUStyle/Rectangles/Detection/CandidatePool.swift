import Foundation

/// Quad candidates whose junction overshoot (`DetectJunctions`) is measured only when needed.
/// It is the costliest term of a candidate's rank, and it can only lower the rank, so a pick
/// needs it just for the candidates that could still outrank it and for those that could enclose
/// it (`RectangleDetector.outermost`); a 640x480 scene has several hundred candidates.
struct CandidatePool {
    private(set) var candidates: [QuadCandidate]
    private var measured: [Bool]
    private let map: EdgeMap?

    /// Each candidate's area, score and `throughT`, which ranking never changes, in plain arrays
    /// for the scans over all candidates (`RectangleDetector.outermost`).
    let areas: [Double]
    let scores: [Double]
    let throughT: [Bool]

    /// With `map` nil the candidates' `overshoot` values are taken as they are.
    init(_ candidates: [QuadCandidate], map: EdgeMap?) {
        self.candidates = candidates
        self.map = map
        measured = [Bool](repeating: map == nil, count: candidates.count)
        let areas = candidates.map(\.quad.area)
        self.areas = areas
        scores = candidates.map(\.score)
        throughT = candidates.map(\.throughT)
        byArea = candidates.indices.sorted { areas[$0] < areas[$1] }
        bounds = candidates.map { c in
            let q = c.quad
            return (min(min(q.topLeft.x, q.topRight.x), min(q.bottomRight.x, q.bottomLeft.x)),
                    min(min(q.topLeft.y, q.topRight.y), min(q.bottomRight.y, q.bottomLeft.y)),
                    max(max(q.topLeft.x, q.topRight.x), max(q.bottomRight.x, q.bottomLeft.x)),
                    max(max(q.topLeft.y, q.topRight.y), max(q.bottomRight.y, q.bottomLeft.y)))
        }
    }

    /// Each candidate's axis-aligned bounds (minimum x, y, maximum x, y).
    let bounds: [(Double, Double, Double, Double)]

    /// Whether p lies within candidate k's bounds grown by `margin`: a quick test that can only
    /// say no where `Quad.contains` with a tolerance of at most margin / 3 would (a corner of
    /// at least 45°, as every gate allows, moves out by tolerance / sin 22.5° < 3 tolerance).
    func mayContain(_ k: Int, _ p: Point, margin: Double) -> Bool {
        let b = bounds[k]
        return p.x >= b.0 - margin && p.y >= b.1 - margin && p.x <= b.2 + margin && p.y <= b.3 + margin
    }

    /// Candidate indices in increasing area.
    let byArea: [Int]

    /// Indices of the candidates whose area lies in (lower, upper], in increasing area: the
    /// only ones that can be an outline of a quad (`RectangleDetector.outermost`), found by
    /// bisection instead of a scan over thousands for each of hundreds of picks.
    func areas(above lower: Double, upTo upper: Double) -> ArraySlice<Int> {
        func firstIndex(where above: (Double) -> Bool) -> Int {
            var lo = 0, hi = byArea.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if above(areas[byArea[mid]]) { hi = mid } else { lo = mid + 1 }
            }
            return lo
        }
        let start = firstIndex { $0 > lower }, end = firstIndex { $0 > upper }
        return byArea[start..<max(start, end)]
    }

    var count: Int { candidates.count }


    /// At most `limit` of `candidates`: those with the highest `bound` (the rank before the
    /// junction term, which can only lower it), ties to the earlier one, kept in their order.
    static func strongest(_ candidates: [QuadCandidate], limit: Int = DetectionParameters.Selection.maximumCandidates,
                          bound: (QuadCandidate) -> Double) -> [QuadCandidate] {
        guard candidates.count > limit else { return candidates }
        let bounds = candidates.map(bound)
        let best = candidates.indices.sorted { bounds[$0] != bounds[$1] ? bounds[$0] > bounds[$1] : $0 < $1 }.prefix(limit)
        return best.sorted().map { candidates[$0] }
    }

    /// Candidate k as ranked: with its overshoot measured.
    mutating func measured(_ k: Int) -> QuadCandidate {
        measure([k])
        return candidates[k]
    }

    /// Measures the given candidates' overshoot, in parallel.
    mutating func measure(_ indices: [Int]) {
        guard let map else { return }
        let pending = indices.filter { !measured[$0] }
        guard !pending.isEmpty else { return }
        candidates.withUnsafeMutableBufferPointer { candidates in
            ParallelFor.ranges(pending.count, grain: 16) { range in
                for k in range { candidates[pending[k]].overshoot = DetectJunctions.overshoot(candidates[pending[k]].quad, map: map) }
            }
        }
        for k in pending { measured[k] = true }
    }
}
