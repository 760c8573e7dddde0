import Foundation

/// Finds rectangular objects (posters, picture frames, notes) in a photo, like Apple Vision's
/// VNDetectRectanglesRequest.
///
/// Stages: box-downscale to at most `DetectEdges.workingPixels` into luma and two
/// colour-difference channels; 5-tap Gaussian; Sobel, keeping the strongest channel per pixel;
/// non-maximum suppression (`DetectEdges`) → orientation-constrained Hough transforms over the
/// whole image and 3 x 3 overlapping windows, each peak refitted to its edge pixels, and the
/// longest edge segments (`DetectLines`, `DetectSegments`) → quads from pairs of line pairs
/// within each group, gated by the options (size, aspect, corner angles) and scored by the share
/// of each side backed by edges that run along it (`DetectQuads`), plus quads whose fourth side
/// only the ends of the other sides' support reveal (`DetectCompletion`), plus quads walked from
/// L-shaped corners across all lines and longer shortlists, for pictures whose sides no single
/// group holds (`DetectCorners`) → the best quads,
/// ranked down where their sides run on past the corners (`DetectJunctions`), each moved out to
/// a well-supported quad enclosing it (`outermost`) → each side stepped out across its frame's
/// band (`DetectBands`), the quad grown to a frame around it (`DetectFrames`), and a side still
/// on a frame's inner edge moved out to where the wall begins (`DetectStuckSides`) → sub-pixel
/// corners from gradient-peak profiles across each side at full resolution and a robust line
/// fit (`DetectRefine`).
public final class RectangleDetector {
    public init() {}
    /// CPU or GLSL kernels for the edge stages (EdgeStage.swift).
    public var edgeStage: EdgeStage = .cpu
    /// The learned picture finder whose proposals choose among and add to the hand-built
    /// observations (`FinderFusion`); nil: the hand-built stages alone.
    public var finder: LearnedDetection?

    public struct OptionsError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func validate(_ options: RectangleDetectionOptions) throws {
        func check(_ ok: Bool, _ message: String) throws { if !ok { throw OptionsError(description: message) } }
        try check((0...1).contains(options.minimumAspectRatio), "--minimum-aspect-ratio must be between 0 and 1")
        try check((0...1).contains(options.maximumAspectRatio), "--maximum-aspect-ratio must be between 0 and 1")
        try check(options.minimumAspectRatio <= options.maximumAspectRatio,
                  "--minimum-aspect-ratio must not exceed --maximum-aspect-ratio")
        try check((0...45).contains(options.quadratureTolerance), "--quadrature-tolerance must be between 0 and 45 degrees")
        try check((0...1).contains(options.minimumSize), "--minimum-size must be between 0 and 1")
        try check((0...1).contains(options.minimumConfidence), "--minimum-confidence must be between 0 and 1")
        try check(options.maximumObservations >= 0, "--maximum-observations must be 0 (all) or more")
    }

    /// The edge stage's output for one photo (the downscaled channels' edges): given to
    /// `detect(_:edges:options:)`, and through `NoteReader.read`, it lets several detections in
    /// the same photo share it (`ImageAnalyzer`: the rectangles request and the note finder).
    public struct Edges: Sendable {
        let map: EdgeMap
        let width: Int
        let height: Int
    }

    /// The edge stage on `image`.
    public func edges(of image: Image) throws -> Edges {
        Edges(map: try edgeStage.run(image), width: image.width, height: image.height)
    }

    /// Observations sorted by confidence, best first, at most `options.maximumObservations`.
    /// `edges`, if given, must be `edges(of: image)`.
    public func detect(_ image: Image, edges: Edges? = nil,
                       options: RectangleDetectionOptions = RectangleDetectionOptions()) throws -> [RectangleObservation] {
        try fused(run(image, edges: edges, options: options, tracing: false).observations, image: image, options: options)
    }

    /// `detect`, and what the detector saw on the way (`DetectionTrace`: the hand-built stages).
    public func detectTraced(_ image: Image, options: RectangleDetectionOptions = RectangleDetectionOptions()) throws
        -> (observations: [RectangleObservation], trace: DetectionTrace) {
        let (observations, trace) = try run(image, options: options, tracing: true)
        return (try fused(observations, image: image, options: options), trace ?? DetectionTrace())
    }

    /// The hand-built observations with the finder's proposals (`FinderFusion`), if there is a finder.
    func fused(_ handBuilt: [RectangleObservation], image: Image, options: RectangleDetectionOptions) throws -> [RectangleObservation] {
        guard let finder else { return handBuilt }
        var all = options
        all.maximumObservations = 0
        return FinderFusion.fuse(proposals: try finder.detect(image, options: all), handBuilt: handBuilt,
                                 width: image.width, height: image.height,
                                 minimumConfidence: options.minimumConfidence, limit: options.maximumObservations)
    }

    func run(_ image: Image, edges: Edges? = nil, options: RectangleDetectionOptions, tracing: Bool) throws
        -> (observations: [RectangleObservation], trace: DetectionTrace?) {
        try RectangleDetector.validate(options)
        guard image.width >= 16, image.height >= 16 else { return ([], nil) }
        precondition(edges.map { $0.width == image.width && $0.height == image.height } ?? true, "edges of another photo")
        let map = try edges?.map ?? edgeStage.run(image)
        let shortSide = Double(min(map.width, map.height))
        let groups = DetectLines.groups(map, minimumVotes: DetectLines.minimumVotes(map, options: options))
        let groupLines = groups.members.map { members in members.map { groups.lines[$0] } }
        // Completion runs on the windows' groups only: it costs the cube of a group's line
        // count, and on the held-out scenes completing the global group (40 lines) found nothing
        // the windows missed. Sequential within a group, so the groups run in parallel.
        var completed = [[QuadCandidate]](repeating: [], count: groupLines.count)
        completed.withUnsafeMutableBufferPointer { completed in
            ParallelFor.ranges(groupLines.count) { range in
                for k in range where k > 0 { completed[k] = DetectCompletion.run(groupLines[k], map: map, options: options) }
            }
        }
        let formed = groupLines.flatMap { DetectQuads.run($0, map: map, options: options) } + completed.flatMap { $0 }
            + DetectCorners.run(groups.lines, map: map, image: image, options: options)
        let candidates = CandidatePool.strongest(formed, bound: bound)
        let (picks, innerPicks) = select(candidates, limit: options.maximumObservations, shortSide: shortSide, map: map)
        let trace = tracing ? DetectionTrace(map: map, groups: groups, candidates: candidates, picks: picks.map(\.outline)) : nil
        let radius = max(DetectionParameters.Refine.minimumSearchRadius, DetectionParameters.Refine.searchRadiusPerScale * Double(map.scale))
        func observation(_ candidate: QuadCandidate) -> RectangleObservation {
            let coarse = Quad(corners: candidate.quad.corners.map(map.toImage))
            let quad = DetectRefine.run(coarse, image: image, searchRadius: radius).canonicalized()
            return RectangleObservation(quad: quad, confidence: Float(min(1, max(0, candidate.score))))
        }
        // The confidences so far are edge scores; at the end they are made probabilities
        // (DetectConfidence), best first, and filtered only then, so that `minimumConfidence`
        // keeps exactly the observations of an unfiltered run at or above it.
        func calibrated(_ list: [RectangleObservation]) -> [RectangleObservation] {
            DetectConfidence.ranked(list.map { Double($0.confidence) })
                .map { RectangleObservation(quad: list[$0.index].quad, confidence: $0.confidence) }
                .filter { Double($0.confidence) >= options.minimumConfidence }
        }
        let outlines: [RectangleObservation] = picks.map { pick in
            let outlined = DetectBands.pushOut(pick.outline, map: map, options: options, image: image)
            let framed = DetectFrames.grow(outlined, map: map, options: options)
                .map { DetectBands.pushOut($0, map: map, options: options, image: image) } ?? outlined
            return observation(DetectStuckSides.run(framed, map: map, options: options, image: image))
        }
        // Different picks often grow and refine into the same outline; report it once.
        let tolerance = Selection.duplicateShare * Double(min(image.width, image.height))
        var distinct: [RectangleObservation] = []
        func isNew(_ o: RectangleObservation) -> Bool { !distinct.contains { $0.quad.isNear(o.quad, within: tolerance) } }
        for outline in outlines where isNew(outline) {
            distinct.append(outline)
        }
        // Vision's choice among nested quads: the outline first, and what a pick was before it
        // was moved out to its outline (the picture inside its frame, the text block on the
        // page) after every outline, as long as observations are left to give, its score
        // capped at the lowest outline's. The outlines stay in the picks' order (best pick
        // first: the one asked for alone, right more often than the best scored after growing,
        // 200 against 182 of 245 first observations on the development scenes).
        let limit = options.maximumObservations == 0 ? Int.max : options.maximumObservations
        guard distinct.count < limit else { return (calibrated(Array(distinct.prefix(limit))), trace) }
        var inner: [RectangleObservation] = []
        let ceiling = distinct.map(\.confidence).min() ?? 1
        for pick in picks.map(\.pick) + innerPicks where pick.score >= Selection.innerScore {
            // Refining moves corners by a pixel or two; most picks are their outline again.
            let coarse = Quad(corners: pick.quad.corners.map(map.toImage))
            guard !distinct.contains(where: { $0.quad.isNear(coarse, within: tolerance) }) else { continue }
            var o = observation(pick)
            o.confidence = min(o.confidence, ceiling)
            inner.append(o)
        }
        for o in inner.sorted(by: { $0.confidence > $1.confidence }) where distinct.count < limit && isNew(o) {
            distinct.append(o)
        }
        return (calibrated(distinct), trace)
    }

    /// The most picks refined into observations (`DetectionParameters.Selection.maximumPicks`).
    public static let maximumPicks = Selection.maximumPicks
    typealias Selection = DetectionParameters.Selection

    /// Best candidates first; among nearly equal scores the larger quad wins (a picture's frame
    /// over the picture inside it), each pick moves out to a well-supported quad enclosing it
    /// (`outermost`), and near-duplicates of a chosen quad are dropped.
    ///
    /// The junction term (`rank`) is measured in growing batches, best `bound` first, until the
    /// picks are settled: a candidate not measured yet ranks at most at its bound, below every
    /// candidate considered. The picks are those a full ranking gives (ties in input order), best
    /// score first. Candidates whose outline was already chosen come back as `inner` (at most
    /// `maximumPicks`, each well supported on its own and not a near-duplicate of a pick).
    func select(_ candidates: [QuadCandidate], limit: Int, shortSide: Double, map: EdgeMap) -> (picks: [Pick], inner: [QuadCandidate]) {
        var pool = CandidatePool(candidates, map: map)
        let bounds = candidates.map(bound)
        let byBound = candidates.indices.sorted { bounds[$0] != bounds[$1] ? bounds[$0] > bounds[$1] : $0 < $1 }
        var measuredCount = 0
        let picks = limit == 0 ? Self.maximumPicks : min(limit, Self.maximumPicks)
        while true {
            let next = limit == 0 ? byBound.count : min(byBound.count, max(Selection.firstBatch, 2 * measuredCount))
            pool.measure(Array(byBound[measuredCount..<next]))
            measuredCount = next
            let ceiling = measuredCount < byBound.count ? bounds[byBound[measuredCount]] : -Double.infinity
            let settled = byBound[..<measuredCount].filter { rank(pool.candidates[$0]) > ceiling }
            let ranked = inRankOrder(settled, of: pool.candidates)
            var chosen: [Pick] = [], inner: [QuadCandidate] = []
            let tolerance = Selection.duplicateShare * shortSide
            for k in ranked {
                if chosen.count >= picks { break }
                let pick = pool.candidates[k]
                let outline = outermost(pick, among: &pool)
                if !chosen.contains(where: { $0.outline.quad.isNear(outline.quad, within: tolerance) }) {
                    chosen.append(Pick(pick: pick, outline: outline))
                } else if pick.score >= Selection.innerScore, inner.count < Self.maximumPicks,
                          !chosen.contains(where: { $0.outline.quad.isNear(pick.quad, within: tolerance) }),
                          !inner.contains(where: { $0.quad.isNear(pick.quad, within: tolerance) }) {
                    inner.append(pick)
                }
            }
            if chosen.count >= picks || measuredCount == byBound.count {
                return (chosen.sorted { $0.outline.score > $1.outline.score }, inner)
            }
        }
    }

    /// A chosen candidate (`pick`) and the well-supported quad enclosing it taken as its outline
    /// (`outermost`; the pick itself when there is none).
    struct Pick {
        let pick: QuadCandidate
        let outline: QuadCandidate
    }

    /// The picture inside a light matte has crisp edges and the matte's outline against a light
    /// wall faint ones, so the photo can outrank the outline. A quad that encloses the pick, at
    /// most twice its area, and is itself well supported (score ≥ 0.92 and at most 0.08 below
    /// the pick's) is taken as the outline instead; repeated for a matte inside a frame
    /// (`DetectionParameters.Selection`: the thresholds and what they measured). The enclosing
    /// quad's sides must not run on past its corners much more than the pick's
    /// (`DetectJunctions`): a frame's side moved out to a mortar line of the brick wall around
    /// it is well supported too, but runs on. Of several, the best supported wins; on equal
    /// support, the higher ranked.
    func outermost(_ candidate: QuadCandidate, among pool: inout CandidatePool) -> QuadCandidate {
        var current = candidate
        for _ in 0..<Selection.outlineSteps {
            let area = current.quad.area, corners = current.quad.corners
            let minimumScore = max(Selection.outlineScore, current.score - Selection.outlineScoreDrop)
            var enclosing: [Int] = []
            // Only the candidates in the area range, and the pool's plain arrays before the
            // candidate itself: scanning and copying thousands of candidates (two arrays each)
            // for each pick was 90 % of a detection with every observation asked for.
            for k in pool.areas(above: Selection.outlineMinimumGrowth * area, upTo: Selection.outlineMaximumGrowth * area) {
                guard !pool.throughT[k], pool.scores[k] >= minimumScore,
                      corners.allSatisfy({ pool.mayContain(k, $0, margin: 3 * Selection.outlineContainment) }) else { continue }
                let quad = pool.candidates[k].quad
                guard corners.allSatisfy({ quad.contains($0, tolerance: Selection.outlineContainment) }) else { continue }
                if pool.measured(k).overshoot <= current.overshoot + Selection.outlineOvershootSlack { enclosing.append(k) }
            }
            enclosing.sort()
            // max(by:) keeps the first of equals: the higher ranked.
            guard let best = inRankOrder(enclosing, of: pool.candidates).max(by: { pool.candidates[$0].score < pool.candidates[$1].score })
            else { break }
            current = pool.candidates[best]
        }
        return current
    }

    /// Edge score, nudged by size so that of two quads supported almost equally well, the outer
    /// one ranks first, and lowered where the sides run on past the corners (`DetectJunctions`):
    /// a rectangle cut out of the picture by its content, or closed by a background line.
    func rank(_ c: QuadCandidate) -> Double {
        bound(c) - Selection.overshootWeight * c.overshoot
    }

    /// The given candidates' indices, highest `rank` first, ties in index order (the candidates'
    /// overshoot must be measured).
    func inRankOrder(_ indices: [Int], of candidates: [QuadCandidate]) -> [Int] {
        let ranks = indices.map { rank(candidates[$0]) }
        return indices.indices.sorted { ranks[$0] != ranks[$1] ? ranks[$0] > ranks[$1] : indices[$0] < indices[$1] }.map { indices[$0] }
    }

    /// The rank before the junction term, which can only lower it.
    func bound(_ c: QuadCandidate) -> Double {
        c.score + Selection.sizeWeight * log(max(c.quad.area, 1))
    }
}
