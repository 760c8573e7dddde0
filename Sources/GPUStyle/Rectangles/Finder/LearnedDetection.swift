/// The learned picture finder's proposals (issue 36): the network's quads, gated by Vision's
/// options like the hand-built candidates, each refined by the detector's sub-pixel side fit
/// (`DetectRefine`), its confidence the centre peak's probability. `RectangleDetector.finder`
/// fuses them with the hand-built observations (`FinderFusion`); `gpustyle detect --front-end
/// learned` shows them alone, to measure the two front ends on the same scenes.
public struct LearnedDetection {
    public let finder: PictureFinder
    /// How far (image pixels) the side fit looks across each side of a proposed quad: the
    /// finder's corners are within 3 % of the diagonal when it counts as found, 2.6 px from the
    /// truth on average at 640 x 480 (tools/train_finder.py, step 2252). The share of the
    /// image's diagonal, and the least radius.
    public var searchShare = 0.006
    public var minimumSearchRadius = 3.0

    public init(finder: PictureFinder) {
        self.finder = finder
    }

    /// Observations sorted by confidence, best first, at most `options.maximumObservations`.
    public func detect(_ image: Image, options: RectangleDetectionOptions = RectangleDetectionOptions()) throws -> [RectangleObservation] {
        try RectangleDetector.validate(options)
        guard image.width >= 16, image.height >= 16 else { return [] }
        let shorter = Double(min(image.width, image.height))
        let radius = max(minimumSearchRadius, searchShare * (Double(image.width * image.width + image.height * image.height)).squareRoot())
        var observations: [RectangleObservation] = []
        for candidate in try finder.candidates(in: image) where Double(candidate.score) >= options.minimumConfidence {
            let corners = candidate.quad.corners
            guard DetectQuads.isConvex(corners), DetectQuads.passesGeometry(corners, options: options),
                  (0..<4).allSatisfy({ corners[$0].distance(to: corners[($0 + 1) % 4]) >= options.minimumSize * shorter }) else { continue }
            // Two passes or a wider radius (3 % of the diagonal first) found 48 and 38 % of the
            // development pictures against 80 %: the fit then takes the strongest edge nearby.
            let refined = DetectRefine.run(candidate.quad, image: image, searchRadius: radius).canonicalized()
            observations.append(RectangleObservation(quad: refined, confidence: candidate.score, measured: false))
        }
        observations.sort { $0.confidence > $1.confidence }
        return options.maximumObservations == 0 ? observations : Array(observations.prefix(options.maximumObservations))
    }
}
