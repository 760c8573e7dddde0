/// The one candidate pool's last step (issue 36): the learned finder chooses which quads are
/// pictures, the hand-built stages measure them.
///
/// The finder's proposals (each refined by the side fit, `LearnedDetection`) come first, best
/// first. A proposal that a hand-built observation agrees with (at least
/// `Parameters.agreeingCorners` corners within `Parameters.agreementShare` of the shorter image
/// side) is replaced by that observation, whose corners come from the lines the edges support,
/// from `Parameters.proposalConfidence` on; a proposal no hand-built observation agrees with
/// needs `Parameters.aloneConfidence` and no corner near the image's border
/// (`Parameters.borderShare`). The hand-built observations no proposal took follow.
/// Without a proposal the result is the hand-built one. Nested quads in Vision's order: when the
/// hand-built stages' first observation encloses the first proposal (a sign around its lower
/// panel, a frame around its picture) it leads, as the outline.
///
/// Why this split (development scenes: make_rectangle_scenes.py's kinds at seeds 1001-1008,
/// dev seed 1001 `--kind all`, the committed set; 264 pictures, 46 negatives;
/// `tools/finder_fusion.py --study`, docs/finder.md has the tables). With the first run's weights
/// the hand-built stages alone found 84.5 %, the finder through the side fit alone 84.8 %
/// (sticky notes 92 against 86 of 95, low contrast 11 against 8 of 12, motion blur 9 against 5,
/// occlusion 6 against 9), and taking the right one of the two every time would have found
/// 93.2 %. Choosing by the two confidences does not work: where the two disagreed, the right
/// one's confidence was as often lower as higher. Replacing agreeing proposals found 88.3 % with
/// all four corners required (a proposal with one corner snapped to the wrong peak, as on large
/// pictures, then beat the right hand-built quad), 91.3 % with three, 90.9 % with two; leaving
/// out the hand-built observations no proposal took lost 4 sticky notes. With the second run's
/// weights: hand-built 84.5 %, finder 90.2 %, either 96.6 %, this rule 93.9 %, corner error
/// 0.72 px against the finder's 1.10 (where both agree the hand-built corners are the finer
/// ones); with the third run's (built in): finder 92.8 %, this rule 93.6 %, 0.56 against
/// 1.01 px. A proposal alone counted from 0.5 found 249, from 0.6 or 0.7 248, from 0.8 246,
/// from 0.9 237 of the 264 (second run): 0.7 is taken, for a picture only the finder sees must
/// be a sure one (Debian's opencv-doc photos had two such proposals with the first
/// weights, 0.53 on a butterfly's leaf and 0.69 inside a box's front).
enum FinderFusion {
    enum Parameters {
        /// Proposals a hand-built observation agrees with count from this centre-peak probability.
        static let proposalConfidence: Float = 0.5
        /// Proposals no hand-built observation agrees with count from this one.
        static let aloneConfidence: Float = 0.7
        /// ... and only with every corner at least this share of the shorter side inside the
        /// image: a picture cut by the border has a side there that nothing measures. On the
        /// live clip "edges" (the picture partly out of view, docs/live.md) proposals alone put
        /// 30 overlays more than 10 px off; on the development stills no picture depended on
        /// one (248 of 264 with 0.005-0.03).
        static let borderShare = 0.02
        /// A hand-built observation agrees with a proposal when `agreeingCorners` of its corners
        /// are within this share of the shorter image side of the proposal's (0.03 of 720 px is
        /// 22 px; 0.05 found 239 of the 264 development pictures, 0.03 241).
        static let agreementShare = 0.03
        static let agreeingCorners = 3
        /// How far outside the outline an enclosed quad's corner may be (a shared side's
        /// corners lie on it): this share of the shorter side.
        static let enclosingShare = 0.01
    }

    /// `proposals` and `handBuilt` best first, in image pixels; those at or above
    /// `minimumConfidence`, at most `limit` (0: all).
    static func fuse(proposals: [RectangleObservation], handBuilt: [RectangleObservation], width: Int, height: Int,
                     minimumConfidence: Double = 0, limit: Int = 0) -> [RectangleObservation] {
        let shorterSide = Double(min(width, height))
        let tolerance = Parameters.agreementShare * shorterSide
        let margin = Parameters.borderShare * shorterSide
        func inside(_ p: Point) -> Bool {
            p.x >= margin && p.y >= margin && p.x <= Double(width - 1) - margin && p.y <= Double(height - 1) - margin
        }
        var taken = Set<Int>()
        var fused: [RectangleObservation] = []
        for proposal in proposals where proposal.confidence >= Parameters.proposalConfidence {
            guard let k = handBuilt.indices.first(where: { !taken.contains($0) && agrees(handBuilt[$0].quad, proposal.quad, within: tolerance) }) else {
                if proposal.confidence >= Parameters.aloneConfidence, proposal.quad.corners.allSatisfy(inside) {
                    fused.append(RectangleObservation(quad: proposal.quad, confidence: proposal.confidence, measured: false))
                }
                continue
            }
            taken.insert(k)
            fused.append(RectangleObservation(quad: handBuilt[k].quad, confidence: max(proposal.confidence, handBuilt[k].confidence)))
        }
        // Behind the proposals: what the finder did not propose, no more sure than they are.
        let ceiling = fused.map(\.confidence).min() ?? 1
        for k in handBuilt.indices where !taken.contains(k) {
            fused.append(RectangleObservation(quad: handBuilt[k].quad, confidence: min(handBuilt[k].confidence, ceiling)))
        }
        // Taken or not, the hand-built first observation is in the list: it leads when it is the
        // outline of the first proposal (`Parameters.enclosingShare`).
        if let outline = handBuilt.first, let first = fused.first, let k = fused.firstIndex(where: { $0.quad == outline.quad }), k > 0,
           encloses(outline.quad, first.quad, tolerance: Parameters.enclosingShare * shorterSide) {
            fused.remove(at: k)
            fused.insert(RectangleObservation(quad: outline.quad, confidence: max(outline.confidence, first.confidence)), at: 0)
        }
        fused = fused.filter { Double($0.confidence) >= minimumConfidence }
        return limit == 0 ? fused : Array(fused.prefix(limit))
    }

    /// Whether every corner of `inner` is inside `outer` or within `tolerance` outside it, and the
    /// two are not the same quad.
    static func encloses(_ outer: Quad, _ inner: Quad, tolerance: Double) -> Bool {
        inner.corners.allSatisfy { outer.contains($0, tolerance: tolerance) } && outer.largestCornerDistance(to: inner) > tolerance
    }

    /// Whether `Parameters.agreeingCorners` corners of `a` are within `tolerance` of `b`'s, in
    /// the corner order (of the four rotations) that matches most.
    static func agrees(_ a: Quad, _ b: Quad, within tolerance: Double) -> Bool {
        (0..<4).contains { shift in
            (0..<4).filter { a.corners[($0 + shift) % 4].distance(to: b.corners[$0]) <= tolerance }.count >= Parameters.agreeingCorners
        }
    }
}
