/// Where a lost picture is while it is out of view: its last quad carried along by the motion of
/// the whole scene, frame to frame. When the camera swings back, the quad comes back into view
/// with the picture, where `LivePipeline` checks it against the picture's template and takes the
/// picture back on its first frames in view, before a detection can see all four of its sides.
///
/// The scene's motion is a `QuadTracking` of (nearly) the whole frame, its points selected anew
/// in every frame; it follows the wall, so a picture far in front of its background drifts from
/// its coasting quad as the camera slides (parallax), and the template check then refuses the
/// quad: the detector still finds the picture.
public final class CoastingQuad {
    private let scene: QuadTracking
    /// The lost picture's quad in the last frame, nil when not coasting.
    private(set) var quad: Quad?

    /// The scene's quad is started again on the whole frame when less than this share of it is still in view.
    static let restartBelowShare = 0.75
    /// Inset of the scene's quad from the frame's edges (pixels): the tracker's windows stay inside.
    static let inset = 8.0

    /// Settings for the scene's tracker: a pan that throws the picture out of view moves the
    /// scene by up to 80 px a frame at 640x480 (2500 px/s on the pan clip), beyond the 70 px a
    /// four-level pyramid follows, and blurs it: a fifth level, and the blur-tolerant point
    /// checks (the scene has no outline to favour: no edge band).
    public static var sceneTrackerOptions: QuadTrackerOptions {
        var options = QuadTrackerOptions.blurTolerant
        options.pyramidLevels = 5
        options.edgeBandShare = 0
        return options
    }

    init(scene: QuadTracking) {
        self.scene = scene
    }

    /// Starts from the picture's last quad, moved by `motion` (its motion in the frame before,
    /// taken once more for this frame, in which it was lost) when given.
    func start(from last: Quad, motion: Homography?, in frame: Image) {
        stop()
        guard let moved = motion.map({ $0.apply(last) }) ?? last else { return }
        quad = moved
        scene.reset(to: Self.whole(frame), in: frame)
    }

    /// Carries the quad into `frame`; nil (and coasting stops) when the scene's motion is lost.
    func advance(_ frame: Image) -> Quad? {
        guard let current = quad else { return nil }
        guard let motion = scene.track(frame)?.motion, let moved = motion.apply(current) else {
            stop()
            return nil
        }
        quad = moved
        // The scene tracker keeps its key frame (its errors do not add up from frame to frame)
        // until the view has moved on: then it starts again on the whole frame.
        if let sceneQuad = scene.quad,
           TrackedQuadCheck.visibleShare(sceneQuad, width: frame.width, height: frame.height) < Self.restartBelowShare {
            scene.reset(to: Self.whole(frame), in: frame)
        }
        return moved
    }

    func stop() {
        quad = nil
        scene.clear()
    }

    static func whole(_ frame: Image) -> Quad {
        let x1 = Double(frame.width - 1) - inset, y1 = Double(frame.height - 1) - inset
        return Quad(corners: [Point(x: inset, y: inset), Point(x: x1, y: inset), Point(x: x1, y: y1), Point(x: inset, y: y1)])
    }
}
