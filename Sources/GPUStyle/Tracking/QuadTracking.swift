/// Follows a quad from frame to frame between detections (`QuadTracker`).
public protocol QuadTracking: AnyObject {
    /// Starts tracking `quad` (image pixel coordinates) as it appears in `frame`.
    func reset(to quad: Quad, in frame: Image)
    /// Stops tracking.
    func clear()
    /// The quad in the last frame, or nil when not tracking.
    var quad: Quad? { get }
    /// The quad in `frame` (the next frame of the same video) and the motion from the previous
    /// frame, or nil when tracking failed (`quad` is then nil).
    func track(_ frame: Image) -> (quad: Quad, motion: Homography)?
}
