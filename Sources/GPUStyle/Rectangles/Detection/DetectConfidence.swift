/// `RectangleObservation.confidence`: the chance that an observation is right (all four corners
/// within 10 px of a rectangle in the picture, as tools/evaluate_rectangles.py scores it), from
/// the observation's edge score (`QuadCandidate.score`, the share of its sides backed by edges,
/// usually 0.55-1) and whether it is the detector's first observation.
///
/// The raw score is no probability: on the development scenes a later observation (the
/// `--maximum-observations 0` list past its first) scoring 0.6-0.9 was right 1-5 % of the
/// time, while a first observation scoring the same was right about 60 %. So each has its own
/// table, fitted there:
///
///     python3 tools/confidence_curve.py DIRS --gpustyle OLD --save dev.json
///     python3 tools/confidence_curve.py --load dev.json --fit
///
/// with OLD a release build whose `RectangleDetector.run` returns the raw scores (its
/// `calibrated` skipping `ranked`; the detector's order: the outlines in the picks' order, then
/// the quads inside them) and DIRS the development folders of docs/speed.md's "Hard kinds" (seeds
/// 1001-1009: /tmp/hard/<kind> and /tmp/hard/all), two mixed sets (`--kind all --count 40
/// --negatives 10`, seeds 2001 and 2002) and the committed Tests/GPUStyleTests/Fixtures/
/// rectangles: 330 scenes, 1874 observations, 282 right (refitted at 70f4a01 plus the picks'
/// order kept). Held-out seeds 3001-3009 were not used (docs/speed.md, "Confidence").
enum DetectConfidence {
    /// A non-decreasing piecewise-linear map from score to probability: linear between the
    /// knots, constant beyond the first and last.
    struct Table: Sendable {
        let knots: [(score: Double, probability: Double)]

        func callAsFunction(_ score: Double) -> Double {
            guard let first = knots.first, score > first.score else { return knots.first?.probability ?? 0 }
            for (a, b) in zip(knots, knots.dropFirst()) where score <= b.score {
                return a.probability + (score - a.score) / (b.score - a.score) * (b.probability - a.probability)
            }
            return knots.last!.probability
        }
    }

    /// The first observation (the only one by default): 245 on the development scenes, 200
    /// right. About 0.68-0.75 up to a score of 0.93 (the best of what the picture offers is
    /// often the rectangle even when its edges are weak), then to 0.97 at a score of 1.
    static let first = Table(knots: [(0.6, 0.680), (0.75, 0.752), (0.93, 0.752), (0.97, 0.858), (0.99, 0.918), (1, 0.965)])

    /// The later observations: 1629, 82 right. Near 0 up to a score of 0.875 (parts of the
    /// picture, its content, the frame's inner edge), then steeply up: a second well-supported
    /// outline is another rectangle (a second note, a nested picture).
    static let later = Table(knots: [(0.7, 0.005), (0.8, 0.012), (0.875, 0.045), (0.915, 0.148), (0.94, 0.379),
                                     (0.965, 0.863), (1, 0.977)])

    /// Confidences for edge scores in the detector's order (the outlines best scored first,
    /// then the quads inside them), and that order made best first: the first keeps its place,
    /// the others are capped at its confidence (so it stays first: 22 of the 1629 were, on the
    /// development scenes) and sorted, equal ones in their order. Returns (index into
    /// `scores`, confidence) pairs.
    static func ranked(_ scores: [Double]) -> [(index: Int, confidence: Float)] {
        guard let head = scores.first else { return [] }
        let top = first(head)
        let rest = scores.indices.dropFirst().map { (index: $0, confidence: Float(min(later(scores[$0]), top))) }
            .sorted { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.index < $1.index }
        return [(index: 0, confidence: Float(top))] + rest
    }
}
