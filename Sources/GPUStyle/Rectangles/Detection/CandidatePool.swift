import Foundation

/// Quad candidates whose junction overshoot (`DetectJunctions`) is measured only when needed.
/// It is the costliest term of a candidate's rank, and it can only lower the rank, so a pick
/// needs it just for the candidates that could still outrank it and for those that could enclose
/// it (`RectangleDetector.outermost`); a 640x480 scene has several hundred candidates.
struct CandidatePool {
    private(set) var candidates: [QuadCandidate]
    private var measured: [Bool]
    private let map: EdgeMap?

    /// With `map` nil the candidates' `overshoot` values are taken as they are.
    init(_ candidates: [QuadCandidate], map: EdgeMap?) {
        self.candidates = candidates
        self.map = map
        measured = [Bool](repeating: map == nil, count: candidates.count)
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
