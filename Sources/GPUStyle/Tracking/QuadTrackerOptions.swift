/// Settings of `QuadTracker`. Distances marked "working pixels" are in the tracker's working
/// image: the frame's luma box-downscaled by the smallest integer factor that brings it to at
/// most `maximumWorkingPixels` (2 for 640 × 480, 3 for 1280 × 720 with the default).
public struct QuadTrackerOptions: Sendable {
    // MARK: image

    /// Largest working image, in pixels. Bounds the cost of the per-frame image work, and the
    /// tracking windows cover the same share of the scene at every camera resolution.
    public var maximumWorkingPixels = 120_000
    /// Pyramid levels including the working image. With the default window, three levels
    /// followed a picture shaken by 15 working pixels per frame but not 20; four follow at
    /// least 35 (70 frame pixels at 640 × 480), for about 0.2 ms more per frame.
    public var pyramidLevels = 4

    // MARK: points

    /// Tracking window radius in working pixels; the window is (2 r + 1)² pixels.
    public var windowRadius = 4
    /// Lucas-Kanade steps per pyramid level at most.
    public var maximumIterations = 10
    /// Most points tracked at a time.
    public var maximumPoints = 100
    /// Share of `maximumPoints` kept for points in a thin band inside the quad's outline.
    public var edgeBandShare = 0.3
    /// A point is kept when tracking it forward and then back lands within this distance of
    /// where it started (working pixels).
    public var forwardBackwardLimit = 0.5
    /// A point is kept when its window before and after correlates at least this well
    /// (zero-mean normalised cross-correlation, −1...1).
    public var minimumCorrelation: Float = 0.8

    // MARK: motion

    /// Inlier distance (working pixels) of the first fit, RANSAC on the frame-to-frame tracks:
    /// loose, as a clean track can be a few tenths of a pixel off after a turn or a zoom.
    public var inlierThreshold = 1.0
    /// Smallest inlier distance (working pixels) of the second fit, to the positions found
    /// against the key frame; the distance used is three times the typical residual, at least
    /// this, at most `inlierThreshold`.
    public var refinedInlierThreshold = 0.15
    /// The smallest correlation between a point's key-frame window, warped by the estimated
    /// motion, and its window in this frame.
    public var minimumKeyCorrelation: Float = 0.9
    /// RANSAC samples per frame at most (fewer when the inlier share is high).
    public var ransacIterations = 200
    /// Seed of the RANSAC sampler: runs on the same frames give the same quads.
    public var seed: UInt64 = 0x5EED_1234_ABCD_0001
    /// Points are selected again when fewer than this share of the last selection is left.
    public var reselectBelowShare = 0.6

    // MARK: validity

    /// Tracking fails with fewer inliers than this.
    public var minimumInliers = 12
    /// Tracking fails when fewer than this share of the points tracked into a frame are inliers.
    public var minimumInlierShare = 0.5
    /// Tracking fails when the quad's area grows or shrinks by more than this factor in one frame.
    public var maximumAreaChange = 1.5
    /// Tracking fails when a corner angle is below this or above 180° minus this (degrees).
    public var minimumCornerAngle = 20.0
    /// Tracking fails when less than this share of the quad's area is inside the frame.
    public var minimumVisibleShare = 0.5
    /// While less than this share of the quad is in the frame its motion is fitted as an
    /// affine mapping, not a homography (0: never): the points cover only the part in view,
    /// and a homography's perspective terms, poorly pinned down by them, swing the corners out
    /// of view. On the edges clip, with half the picture out of view, the out-of-view corners of
    /// a homography track jumped 8 px in one frame and stayed 17-19 px off; fitted as affine they
    /// stayed within 10 px (docs/live.md). From a share of 1 (any corner out of view), the pan
    /// clip's last frame before the picture left the view, blurred by 38 px with 53 % in view,
    /// was drawn 10.2 px off instead of 9.9.
    public var affineBelowVisibleShare = 0.7

    public init() {}
}

extension QuadTrackerOptions {
    /// Looser point checks for frames blurred by fast motion (a pan's frames against each other,
    /// or against a sharp reference): points are kept at a correlation of 0.5 (frame to frame)
    /// and 0.6 (against the key frame) and a forward-backward distance of 1 working pixel, where
    /// the defaults (0.8, 0.9, 0.5) kept 10-20 of 60 points on the frames where a picture came
    /// back after a pan. What such a tracker finds must be checked by other means.
    public static var blurTolerant: QuadTrackerOptions {
        var options = QuadTrackerOptions()
        options.minimumCorrelation = 0.5
        options.minimumKeyCorrelation = 0.6
        options.forwardBackwardLimit = 1.0
        return options
    }
}
