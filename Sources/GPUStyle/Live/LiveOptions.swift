/// How `LivePipeline` treats a video.
public struct LiveOptions: Sendable {
    /// The style (or blend) to apply; with `cyclePeriod`, the first of the cycle.
    public var mix: StyleMix
    /// Mix with the original picture: 1 = fully stylized.
    public var strength: Float = 1
    /// Keep the picture's own colours (`PreservedColor`).
    public var preserveColor = false
    /// Temporal smoothing of the stylized images (`--smooth`); nil = off.
    public var smoothing: TemporalSmoothing.Parameters?
    /// Seconds per style when stepping through the styles (`--cycle`); nil keeps `mix`.
    public var cyclePeriod: Double?
    /// Seconds over which a new style's first image fades in over the previous one.
    public var crossfade = 0.5
    /// Stylize whole frames instead of the detected picture.
    public var fullFrame = false
    /// Shortest time between two detections (0.1 s: at most 10 a second).
    public var detectionInterval = 0.1
    /// How the pipeline makes sure the overlay is on the picture (`LiveVerification`).
    public var verification = LiveVerification()
    /// Longer side of the rectified picture the network runs on: the overlay covers a few
    /// hundred pixels of a 640x480 frame, and a 256-pixel input keeps the style refreshing
    /// several times a second on the CPU path.
    public var stylizeSide = 256
    /// Width of the overlay's blended edge in pixels (`QuadMask`).
    public var feather = 1.5
    /// Wait for each detection before the next frame, so that the quads do not depend on the
    /// machine's speed (tests, evaluation); a real-time run never waits. (The stylized images
    /// still arrive when they are ready: they change the pixels, not the quads.)
    public var lockstep = false
    /// Vision's detection parameters (`maximumObservations` is always 1 here).
    public var detection = RectangleDetectionOptions()

    public init(mix: StyleMix) {
        self.mix = mix
    }

    /// The style for cycle step `step` (0 = `mix`; then the styles after `mix`'s dominant one).
    func mix(forStep step: Int) -> StyleMix {
        guard step > 0 else { return mix }
        let dominant = mix.weights.indices.max { mix.weights[$0] < mix.weights[$1] } ?? 0
        // Indices are in range by construction, so this cannot throw.
        return (try? StyleMix(style: (dominant + step) % StyleNetwork.styleCount)) ?? mix
    }

    /// Cycle step at video time `time` (seconds).
    func step(at time: Double) -> Int {
        guard let period = cyclePeriod, period > 0 else { return 0 }
        return Int(max(0, time) / period)
    }
}

/// What the pipeline knew about the picture in a frame.
public enum LiveState: String, Sendable {
    /// No picture known: waiting for a first detection (or the last one was forgotten).
    case searching
    /// A detection arrived for this frame (carried forward to it by tracking) and was taken.
    case detected
    /// Tracked from the previous frame, and the tracked quad still looks like the picture.
    case tracked
    /// The picture was lost (this frame or earlier) and not found again yet: no overlay.
    case lost
    /// `fullFrame`: no quad involved.
    case fullFrame = "full-frame"
}

/// Why a tracked picture was let go.
public enum LiveLoss: String, Sendable {
    /// The tracker found no consistent motion (or the quad left the frame, folded, ...).
    case tracking
    /// The tracked quad no longer looks like the picture's template.
    case appearance
    /// No detection confirmed the track for `LiveVerification.confirmationTimeout`.
    case unconfirmed
}

/// Why a finished detection was not taken on a frame (`--quad-log`'s "refused"): a closed set,
/// so that a clip's first seconds can be read from the log.
public enum LiveRefusal: String, Sendable, CaseIterable {
    /// A corner lies on the frame's edge: the picture is partly out of view and the quad is cut.
    case edgeCut = "edge-cut"
    /// It could not be carried from the (older) frame it was made on to this one.
    case notCarried = "not-carried"
    /// A candidate new picture: nothing is drawn until a second detection agrees with it.
    case unconfirmed
    /// A candidate new picture whose sides run on past its corners (`OutlineRunOn`): a block of
    /// tiles or panes, not a framed picture.
    case runsOn = "runs-on"
    /// Overlapping the tracked picture, or centred inside the lost picture's coasting quad while
    /// that is partly out of view: a part of the picture, not a new one.
    case overlaps
    /// A candidate confirmed while the tracked picture was confirmed too (or is partly out of
    /// view): the tracked one stays.
    case oldTemplate = "old-template"
    /// Inside the tracked quad (the frame's inner edge, most likely): the outline stays.
    case innerEdge = "inner-edge"
    /// Near the tracked quad but it looks less like the picture than the track does.
    case worseScore = "worse-score"
    /// The tracker could not start from it.
    case untrackable
    /// The learned finder's proposal alone (`RectangleObservation.measured` false): it confirmed
    /// the tracked picture, or looked like the lost one, but moves or takes back neither.
    case unmeasured
}

/// The record of one processed frame (`--quad-log`).
public struct LiveFrameReport: Sendable {
    public let index: Int
    public let state: LiveState
    /// The picture's quad in this frame (nil while searching, and in full-frame mode).
    public let quad: Quad?
    /// Whether a stylized image was drawn (the first one may not be back yet).
    public var overlaid: Bool
    /// The quad's appearance score against the picture's template (`PictureTemplate.score`),
    /// when one was computed this frame.
    public var score: Double? = nil
    /// Set on the frame where the picture was let go.
    public var loss: LiveLoss? = nil
    /// Set when a detection was considered on this frame and not taken.
    public var refused: LiveRefusal? = nil
}
