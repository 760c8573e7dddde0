/// Follows a flat picture (a quad found by `RectangleDetector`) from frame to frame of a video,
/// between detections: the real-time half of a live "find the picture and alter it" pipeline.
///
/// Per frame:
/// 1. the luma pyramid of the frame around the quad (`GrayPyramid`);
/// 2. the points tracked from the previous frame by pyramidal Lucas-Kanade, kept when they
///    come back to where they started and still look alike (`PointTracking.track`);
/// 3. a first homography, key frame → this frame, by RANSAC (`RobustHomography`);
/// 4. each point's key-frame window, warped by that homography, found again in this frame
///    (`PointTracking.align`), and the final homography fitted to those positions;
/// 5. plausibility checks on the new quad (`TrackedQuadCheck`).
///
/// Points are selected (`GoodFeatures`) in the key frame and then kept, rather than selected
/// anew every frame: step 4 needs each point's window in a fixed key frame, and that is what
/// keeps the quad from drifting. Frame-to-frame tracks alone accumulate each window's small
/// error (a translating window slides towards its strongest texture as the picture turns or
/// grows): on the test video, 2 px after 10 frames; against the key frame nothing is carried
/// from frame to frame. Keeping points also saves the selection (about as costly as tracking)
/// and drops a point that followed an occluder for good. Points are selected again, in the
/// current frame and quad, when fewer than `reselectBelowShare` of them are left, when the quad
/// has grown or shrunk twofold since (the key frame's windows would be resampled too coarsely
/// or too finely), or when the key frame no longer matches (step 4 failed).
///
/// Not thread-safe: one tracker per video, called from one thread at a time.
public final class QuadTracker {
    public let options: QuadTrackerOptions

    /// The quad in the previous frame, or nil when not tracking.
    public private(set) var quad: Quad?
    /// The frame-to-frame motion of the whole scene content inside the last quad, previous frame
    /// to the last frame given to `track` (frame pixel coordinates): the same as `track`'s
    /// `motion`, kept so that a detection made on an older frame can be carried forward by
    /// composing the motions since. Nil after `reset`, `clear` or a failed `track`.
    public private(set) var motion: Homography?

    /// Why the last `track` returned nil (nil after a success).
    private(set) var lastFailure: QuadTrackingFailure?
    /// Points tracked into the last frame, how many came back (forward-backward) and
    /// correlated, and how many of those followed the fitted motion.
    private(set) var lastPointCount = 0
    private(set) var lastTrackedCount = 0
    private(set) var lastInlierCount = 0
    /// Inliers that were also found against the key frame.
    private(set) var lastAlignedCount = 0
    /// How many times points were selected since the last reset (the reset's own selection included).
    private(set) var selections = 0

    private var previous = GrayPyramid()
    private var next = GrayPyramid()
    /// Working image of the key frame.
    private var keyPlane = GrayPlane()
    /// Quad in the key frame (frame coordinates).
    private var keyQuad: Quad?
    /// Points in the key frame and in the previous frame (working coordinates), pair by pair.
    private var keyPoints: [Point] = []
    private var points: [Point] = []
    /// Points at the last selection.
    private var selectedCount = 0
    /// Key frame to previous frame, working coordinates.
    private var keyToPrevious = Homography.identity
    private var random: SeededRandom

    /// A selected window scores at least this share of the best one in its region: enough for
    /// a textured picture to fill its budget with good windows, little enough that a plain
    /// one still gets its few.
    static let selectionQuality: Float = 0.02
    /// ... and at least this much per pixel (intensities in [0, 1]): weaker-direction gradients
    /// of about 0.0045, a little above the 1/255 steps of 8-bit video, below which a window's
    /// texture is mostly quantisation and noise.
    static let selectionFloor: Float = 2e-5

    public init(options: QuadTrackerOptions = QuadTrackerOptions()) {
        // Out-of-range settings are programming errors, not conditions of the video.
        precondition(options.maximumWorkingPixels >= 1, "maximumWorkingPixels must be positive")
        precondition((1...8).contains(options.pyramidLevels), "pyramidLevels must be 1 to 8")
        precondition((1...32).contains(options.windowRadius), "windowRadius must be 1 to 32")
        precondition(options.maximumIterations >= 1 && options.ransacIterations >= 1, "iteration counts must be positive")
        precondition(options.maximumPoints >= 4 && options.minimumInliers >= 4, "a homography needs at least 4 points")
        precondition(options.maximumAreaChange >= 1, "maximumAreaChange must be at least 1")
        self.options = options
        random = SeededRandom(seed: options.seed)
    }

    /// Starts tracking `quad` (image pixel coordinates) as it appears in `frame`. A quad that is
    /// not convex with corners clockwise on screen (as `Quad.validateForWarp` requires) is not
    /// tracked: `quad` stays nil.
    public func reset(to quad: Quad, in frame: Image) {
        clear()
        guard frame.width > 0, frame.height > 0, (try? quad.validateForWarp()) != nil else { return }
        random = SeededRandom(seed: options.seed)
        build(&previous, from: frame, around: quad)
        select(quad: quad)
        self.quad = quad
    }

    /// Stops tracking (nothing to track until the next reset).
    public func clear() {
        quad = nil
        motion = nil
        keyQuad = nil
        keyPoints = []
        points = []
        selectedCount = 0
        selections = 0
        lastFailure = nil
        lastPointCount = 0
        lastTrackedCount = 0
        lastInlierCount = 0
        lastAlignedCount = 0
    }

    /// Tracks the quad into `frame` (the next frame of the same video).
    /// Returns the new quad and the homography previous frame -> this frame, or nil when
    /// tracking failed (then `quad` becomes nil).
    public func track(_ frame: Image) -> (quad: Quad, motion: Homography)? {
        guard let previousQuad = quad, let keyQuad else { return nil }
        guard frame.width == previous.frameWidth, frame.height == previous.frameHeight else {
            return fail(.frameSizeChanged)
        }
        build(&next, from: frame, around: previousQuad)
        let lk = LucasKanade(windowRadius: options.windowRadius, maximumIterations: options.maximumIterations)
        let limits = PointTracking.Limits(forwardBackward: options.forwardBackwardLimit,
                                          correlation: options.minimumCorrelation)
        let tracked = PointTracking.track(points, from: previous, to: next, lk: lk, limits: limits)
        lastPointCount = points.count
        lastInlierCount = 0
        lastTrackedCount = 0
        lastAlignedCount = 0
        var from: [Point] = [], to: [Point] = []
        for (k, q) in zip(keyPoints, tracked) {
            if let q { from.append(k); to.append(q) }
        }
        lastTrackedCount = from.count
        guard from.count >= max(4, options.minimumInliers) else { return fail(.tooFewPoints) }
        let settings = RobustHomography.Settings(threshold: options.inlierThreshold,
                                                 maximumIterations: options.ransacIterations)
        guard let fit = RobustHomography.fit(from: from, to: to, settings: settings, random: &random) else {
            return fail(.noConsistentMotion)
        }
        lastInlierCount = fit.inlierCount
        guard fit.inlierCount >= options.minimumInliers,
              Double(fit.inlierCount) >= options.minimumInlierShare * Double(points.count) else {
            return fail(.tooFewInliers)
        }
        // Refine against the key frame: the frame-to-frame tracks carry each window's small
        // errors along (a window slides towards its strongest texture as the picture turns or
        // grows), the key frame's windows seen through the estimate do not.
        var keyToCurrent = fit.homography
        let inlierKeys = (0..<from.count).filter { fit.inliers[$0] }.map { from[$0] }
        let aligned = PointTracking.align(inlierKeys, in: keyPlane, keyToPlane: keyToCurrent, plane: next.levels[0],
                                          lk: lk, reach: Float(2 * options.inlierThreshold),
                                          correlation: options.minimumKeyCorrelation)
        var alignedFrom: [Point] = [], alignedTo: [Point] = []
        for (k, q) in zip(inlierKeys, aligned) {
            if let q { alignedFrom.append(k); alignedTo.append(q) }
        }
        lastAlignedCount = alignedFrom.count
        let refined = refine(from: alignedFrom, to: alignedTo, settings: settings)
        if let refined { keyToCurrent = refined }
        if TrackedQuadCheck.visibleShare(previousQuad, width: frame.width, height: frame.height) < options.affineBelowVisibleShare {
            let kept = (0..<alignedFrom.count).filter { keyToCurrent.apply(alignedFrom[$0]).distance(to: alignedTo[$0]) <= options.inlierThreshold }
            if kept.count >= options.minimumInliers,
               let affine = Homography.affineLeastSquares(from: kept.map { alignedFrom[$0] }, to: kept.map { alignedTo[$0] }) {
                keyToCurrent = affine
            }
        }
        let toFrame = next.workingToFrame
        let keyToCurrentFrame = toFrame.composed(after: keyToCurrent.composed(after: toFrame.inverse))
        // Every corner must stay in front of the camera for the mapped quad to mean anything.
        guard let newQuad = keyToCurrentFrame.apply(keyQuad) else { return fail(.notConvex) }
        if let failure = TrackedQuadCheck.failure(of: newQuad, previous: previousQuad, frameWidth: frame.width,
                                                  frameHeight: frame.height, options: options) {
            return fail(failure)
        }
        let step = keyToCurrent.composed(after: keyToPrevious.inverse)
        let frameMotion = toFrame.composed(after: step.composed(after: toFrame.inverse))

        swap(&previous, &next)
        keyToPrevious = keyToCurrent
        // Next frame's tracks start where the fitted motion puts the points: a point's own
        // error is not handed on.
        keyPoints = inlierKeys
        points = inlierKeys.map { keyToCurrent.apply($0) }
        quad = newQuad
        motion = frameMotion
        lastFailure = nil
        let growth = newQuad.area / keyQuad.area
        if Double(points.count) < options.reselectBelowShare * Double(selectedCount) || growth > 2 || growth < 0.5
            || refined == nil {
            select(quad: newQuad)
        }
        return (newQuad, frameMotion)
    }

    /// The key → frame homography from the positions found against the key frame: RANSAC at the
    /// usual distance, then least-squares refits on the pairs within three times their typical
    /// residual (bounded below by `refinedInlierThreshold`). Clean points land within a few
    /// hundredths of a pixel there; a window partly covered by an occluder or partly beyond the
    /// picture's outline lands a few tenths off, well inside the usual distance, and would pull
    /// the fit. Nil (keep the first estimate) when too few points are left.
    private func refine(from: [Point], to: [Point], settings: RobustHomography.Settings) -> Homography? {
        guard from.count >= options.minimumInliers,
              let first = RobustHomography.fit(from: from, to: to, settings: settings, random: &random) else { return nil }
        let residuals = (0..<from.count).filter { first.inliers[$0] }
            .map { first.homography.apply(from[$0]).distance(to: to[$0]) }.sorted()
        // Distances of 2-D Gaussian errors (Rayleigh): the median is 1.18 σ, 99% lie within 3.03 σ.
        let typical = residuals[residuals.count / 2] / 1.18
        let threshold = min(options.inlierThreshold, max(options.refinedInlierThreshold, 3 * typical))
        guard let fit = RobustHomography.refit(first.homography, from: from, to: to, threshold: threshold),
              fit.inlierCount >= options.minimumInliers else { return nil }
        return fit.homography
    }

    private func fail(_ failure: QuadTrackingFailure) -> (quad: Quad, motion: Homography)? {
        let counts = (lastPointCount, lastTrackedCount, lastInlierCount, lastAlignedCount)
        clear()
        lastFailure = failure
        (lastPointCount, lastTrackedCount, lastInlierCount, lastAlignedCount) = counts
        return nil
    }

    /// The pyramid of `frame` where `quad` is or can have moved to: within the quad's bounding
    /// box plus a margin of 2^levels · (window radius + 2) working pixels (48 with the
    /// defaults), more than the pyramid's reach in one frame plus a window at every level.
    private func build(_ pyramid: inout GrayPyramid, from frame: Image, around quad: Quad) {
        pyramid.build(from: frame, maximumWorkingPixels: options.maximumWorkingPixels,
                      levelCount: options.pyramidLevels, smallestSide: 2 * options.windowRadius + 3,
                      around: quad.boundingBox, margin: (1 << max(1, options.pyramidLevels)) * (options.windowRadius + 2))
    }

    /// Makes the previous frame the key frame and `quad` its quad, with fresh points.
    private func select(quad: Quad) {
        let working = Quad(corners: quad.corners.map { previous.toWorking($0) })
        let settings = GoodFeatures.Settings(windowRadius: options.windowRadius, maximumCount: options.maximumPoints,
                                             bandShare: options.edgeBandShare, qualityLevel: Self.selectionQuality,
                                             minimumEigenvalue: Self.selectionFloor)
        points = GoodFeatures.select(in: previous.levels[0], quad: working, settings: settings)
        keyPoints = points
        keyPlane = previous.levels[0]
        selectedCount = points.count
        keyQuad = quad
        keyToPrevious = .identity
        selections += 1
    }
}
