/// The rectangle detector's tuned numbers, stage by stage, each with what it does and how its
/// value was chosen. Lengths are in working-map pixels (`DetectEdges.workingPixels`) unless
/// said otherwise; "held-out" scenes are generator seeds the detector was not tuned on.
/// Vision's own parameters (size, aspect, quadrature tolerance, confidence, count) are the
/// user's, in `RectangleDetectionOptions`.
enum DetectionParameters {
    /// Hough lines and line groups (`DetectLines`).
    enum Lines {
        /// 2° bins: the refit (`DetectLines.refine`) makes lines exact, the bins only need to
        /// separate them.
        static let thetaBins = 90
        /// Gradient directions of weak or slightly blurred edges scatter by several degrees, so
        /// a pixel votes for ±3 bins (±6°); with ±2° a 100-px side collected about a fifth of its
        /// pixels.
        static let voteSpread = 3
        /// Lines kept from the whole image's votes and from each window's.
        static let globalLines = 40
        static let windowLines = 20
        /// Lines in the segment group. Measured on held-out scenes (two seeds, 60 pictures
        /// each): the group added 45 -> 47 and 49 -> 51 found; 20, 30 and 40 lines alike;
        /// per-window segment groups like the Hough ones added nothing.
        static let segmentGroupLines = 20
        /// A Hough peak needs this share of the smallest side the options allow in votes, and
        /// at least `minimumVotes`.
        static let votesPerSide = 0.3
        static let minimumVotes = 10
        /// Each region gives the corner walk (`DetectCorners`) this many times its quota of
        /// lines, the segments too: a picture's sides on a brick wall or a wooden desk rank
        /// below a hundred mortar lines or grain streaks (one held-out scene: the four sides
        /// were lines 201-318 of 330). The walk needs no groups, so it can take them.
        static let cornerQuotaFactor = 3
    }

    /// Quads from pairs of line pairs (`DetectQuads`) and the gates every candidate passes.
    enum Quads {
        /// The smallest side any option allows: below 8 pixels a side has too few edge pixels to
        /// be told from noise.
        static let minimumSidePixels = 8.0
        /// Opposite sides of a rectangle seen in perspective are not parallel; this is how far
        /// apart (in degrees) their directions may be.
        static let maximumOppositeSkew = 40.0
        /// Opposite lines closer than this share of the smallest side are not paired (measured
        /// at one line's foot point, where the skew matters least).
        static let minimumPairGap = 0.8
        /// A side needs at least this share of its length on edges; all sides together more.
        /// 0.45 found 5 more of the 360 pictures on six held-out seeds, then none more on two
        /// seeds made afterwards, where it let a brick wall's mortar lines through as a quad (a
        /// false positive).
        static let minimumSideCoverage = 0.55
        static let minimumMeanCoverage = 0.7
        /// Share of a side's length at each end left out of its coverage (rounded frame corners).
        static let cornerTrim = 0.04
        /// Corners may lie this far outside the working map (a picture cut by the border).
        static let borderMargin = 2.0
    }

    /// The corner walk (`DetectCorners`).
    enum Corners {
        /// An arm starts this far from the crossing: blur and rounded frame corners leave the
        /// last pixels before a corner off the edge.
        static let armGap = 2.0
        /// An arm is checked over this share of the smallest side the options allow, and at
        /// least `minimumArmLength` pixels.
        static let armShare = 0.25
        static let minimumArmLength = 6.0
        /// Share of an arm that must lie on edges running along its line.
        static let armCoverage = 0.6
        /// A side joins corners at least this share of the smallest side apart (a side seen in
        /// perspective is shorter than the quad's mean width; `DetectQuads` gates that mean).
        static let minimumSideShare = 0.5
        /// Share of the stretch before each arm (the line run on past the corner) that may lie
        /// on edges: a picture's corner is an L, where a brick wall's mortar makes Ts and Xs.
        /// Taking every T (one line running on) made 30 times the corners on a brick wall, and
        /// the walk's hypotheses with them; a T counts only by its colours (below).
        static let maximumRunOn = 0.5
        /// A T (one line running on) is a corner when the wedge between its arms differs from
        /// the regions across both arms by at least this RGB distance (0...1 per channel),
        /// sampled this many arm lengths from the corner. Development sets: 0.2 found 6 more
        /// sticky notes of 95 on a wooden desk than Ls alone; 0.1 as many, with a false positive.
        static let minimumWedgeContrast = 0.2
        static let wedgeDistance = 0.5
        /// At most this many line sets are scored per image: a chequered floor makes corners at
        /// every tile; the pictures on the scenes need a few hundred.
        static let maximumHypotheses = 20_000
    }

    /// Quads completed from three lines (`DetectCompletion`).
    enum Completion {
        /// How many triples a group may complete (the best covered first).
        static let maximumTriples = 24
        /// Edge coverage the three given sides need.
        static let minimumCoverage = 0.7
        /// The two parallel sides are followed from this far past the first one (its own edge
        /// pixels sit at the crossing).
        static let armGap = 2.0
        /// A side's support ends at the first gap longer than this.
        static let maximumGap = 12
    }

    /// The junction term (`DetectJunctions`): do the sides run on past the corners?
    enum Junctions {
        /// Length of each stretch probed past a corner, as a share of the side, and at least
        /// `minimumReach` pixels.
        static let reachShare = 0.15
        static let minimumReach = 6.0
        /// Probes start this far past the corner: the other side's own edge pixels sit at it.
        static let gap = 2.0
    }

    /// Ranking and choosing among the candidates (`RectangleDetector.select`, `CandidatePool`).
    enum Selection {
        /// The most quad candidates one detection considers. Picking is quadratic in the count
        /// (each pick looks for a candidate enclosing it, `RectangleDetector.outermost`), and a
        /// scene of many parallel lines forms quads from almost every pair of line pairs: a
        /// 1280x720 checkerboard with every gate open made tens of thousands and took minutes.
        /// The committed scenes make at most 3,732 with Vision's defaults, so this bound
        /// changes nothing for them.
        static let maximumCandidates = 8_192
        /// The most picks refined into observations, `maximumObservations` 0 ("all") included.
        /// Refining costs milliseconds a pick; the committed scenes give at most 65 picks with
        /// every observation asked for, a 1280x720 checkerboard with every gate open thousands
        /// (45 s of refinement). Scenes with fewer picks get exactly the picks they got without
        /// the bound.
        static let maximumPicks = 256
        /// The junction term is measured for at least this many candidates at a time.
        static let firstBatch = 64
        /// Two picks (and two observations) whose corners all lie within this share of the
        /// shorter image side are the same quad.
        static let duplicateShare = 0.05
        /// Rank = edge score + sizeWeight × ln(area) − overshootWeight × overshoot: of two quads
        /// supported almost equally well the outer one ranks first. On held-out scenes (two
        /// seeds, 60 pictures each): 43 -> 44 and 43 -> 45 found with overshoot weight 0.4
        /// (0.1-0.8 alike, 1.5 worse), nothing lost.
        static let sizeWeight = 0.05
        static let overshootWeight = 0.4
        /// A quad enclosing the pick is taken as its outline when it is well supported (score
        /// ≥ `outlineScore` and at most `outlineScoreDrop` below the pick's), larger by more
        /// than `outlineMinimumGrowth` and at most `outlineMaximumGrowth` in area, and runs on
        /// past its corners at most `outlineOvershootSlack` more than the pick; at most
        /// `outlineSteps` times. Held-out (two seeds, 60 pictures each): 34 → 37 and 39 → 41
        /// detected, no false positives; with the overshoot check 46 → 47.
        static let outlineScore = 0.92
        static let outlineScoreDrop = 0.08
        static let outlineMinimumGrowth = 1.03
        static let outlineMaximumGrowth = 2.0
        static let outlineOvershootSlack = 0.1
        static let outlineSteps = 4
        /// How far (working pixels) a corner may lie outside the enclosing quad.
        static let outlineContainment = 0.5
        /// A candidate whose outline is already a pick is still reported after every outline
        /// (the picture inside its frame) when its own score is at least this.
        static let innerScore = 0.9
    }

    /// Growing a quad to the frame around it (`DetectFrames`).
    enum Frames {
        /// How far outward each side looks, as a share of the quad's shorter side, and at least
        /// `minimumReach` pixels.
        static let reach = 0.25
        static let minimumReach = 3.0
        /// Share of a side the outer edge must cover.
        static let minimumCoverage = 0.6
        /// The search starts past the side's own edge response (a couple of pixels) and steps
        /// out 1 px at a time, at each offset trying these tilts (radians, about the side's
        /// midpoint, for perspective).
        static let firstOffset = 2.5
        static let tilts = [0.0, -0.02, 0.02, -0.04, 0.04]
        /// Frames inside frames followed outward.
        static let maximumRings = 3
    }

    /// Moving out a side stuck on a frame's inner edge (`DetectStuckSides`).
    enum StuckSides {
        /// The strips compared, in working pixels from the side (a dark frame's moulding is
        /// about 4).
        static let stripNear = 1.5
        static let stripFar = 4.0
        /// How far out a side may move, as a share of the quad's shortest side, and at least
        /// `minimumReach` pixels; probes start `firstOffset` out.
        static let reach = 0.25
        static let minimumReach = 4.0
        static let firstOffset = 2.0
        /// The outer edge's share of the side (wide mouldings sit on busy walls).
        static let minimumCoverage = 0.5
        /// When the wall beyond the side is dark like the moulding (a dark frame before a cat's
        /// eye), it is not nearer the other sides' wall colours; the probe is then also taken
        /// where the strip inside it is still the moulding (RGB distance ≤ `sameMoulding` from
        /// the strip just outside the stuck side) and the strip beyond is not (≥
        /// `leavesMoulding`). Measured on 91 frames of `make_live_video.py --seed 3` (approach
        /// and tilt): 17 → 65 found; development sets 280 → 281 of 345, no new false positives.
        static let sameMoulding = 0.08
        static let leavesMoulding = 0.12
    }

    /// Sub-pixel refinement (`DetectRefine`), in image pixels: how far across each side the
    /// gradient profile is searched, at least `minimumSearchRadius` and `searchRadiusPerScale`
    /// working-map pixels.
    enum Refine {
        static let minimumSearchRadius = 2.5
        static let searchRadiusPerScale = 1.5
        /// A gradient profile across a side whose values stay above `plateauLevel` × its peak
        /// for at least `blurWidth` pixels is a blurred edge: its centroid is taken rather than
        /// its peak, the profile reaching `blurRadius` pixels each way for it.
        static let blurRadius = 16.0
        static let blurWidth = 4.0
        static let plateauLevel = 0.5
    }
}
