/// When `LivePipeline` shows the overlay: only on a quad that looks like the picture and that a
/// detection confirmed recently. Drawing something wrong is worse than drawing nothing.
public struct LiveVerification: Sendable {
    /// A tracked quad whose `PictureTemplate` score is below this is lost on that very frame.
    public var minimumScore = 0.4
    /// A detection made while the picture is lost is the same picture when its score against
    /// the template is at least this (re-identification). Measured on the detections made while
    /// the picture was lost in the pan, second and edges clips: another picture scored -0.25 to
    /// -0.12; the right picture 0.40-0.98, the low ones on frames blurred by 15-27 px (where the
    /// detections are also 2-9 px off); quads found on part of a picture half out of view,
    /// 12-87 px off, 0.45-0.63. 0.7 took the picture back a frame or two earlier in the pans
    /// but moved the second clip's 95th-percentile corner error from 4.2 to 6.8 px: a blurred
    /// frame is better skipped.
    public var reidentifyScore = 0.8
    /// ...compared over 5 x 5 template samples (`PictureTemplate.score`'s smoothing, about an
    /// eighth of the picture's width). On the same detections: the right picture 0.72-0.99 (0.9
    /// and more for most blurred ones), another picture below -0.25, parts of a picture
    /// 0.27-0.64.
    public var reidentifySmoothing = 2
    /// A detection replaces the tracked quad only when its score is at least the track's minus this.
    public var scoreMargin = 0.1
    /// The template is taken anew from a detection that scored at least this against it (the
    /// same picture, well aligned: the template follows slow changes of light and view, and a
    /// detector's error does not become the reference).
    public var refreshScore = 0.9
    /// A track that no detection has confirmed for this long (seconds) is dropped.
    public var confirmationTimeout = 1.0
    /// A picture coming back into view is taken back from its coasting quad (`CoastingQuad`)
    /// once this share of it is in view and it scores `reidentifyScore` (at half in view, the
    /// out-of-view corners of a quad taken back on the edges clip were 13 px off)...
    public var recoveryVisibleShare = 0.7
    /// ...and a detection must confirm it within this many seconds (until then it must keep
    /// scoring `reidentifyScore`).
    public var recoveryConfirmation = 0.5
    /// Seconds after a loss for which the lost picture's template is kept to re-identify it (a
    /// detection that does not re-identify is a candidate new picture all the same: issue 35).
    public var forgetAfter = 3.0
    /// A candidate new picture is confirmed by a later detection whose corners are all within
    /// this many pixels of the candidate carried to its frame (or `candidateAgreementShare` of
    /// the quad's size, if more): the same object, as `LivePipeline`'s "near". With 3 % of the
    /// size, the picture coming back after the busy clip's pan was refused for 7 frames in a row:
    /// the detector took the frame's outer edge and its inner edge by turns, 8 px apart on a
    /// 155 px picture.
    public var candidateAgreement = 4.0
    public var candidateAgreementShare = 0.1
    /// A candidate not seen again within this many seconds is dropped.
    public var candidateLifetime = 0.5
    /// Agreeing detections in a row (the first included) that a candidate overlapping the
    /// tracked picture needs, where another candidate needs 2: while a hand covers a picture the
    /// detector can be misled twice in a row (the committed clip). While a candidate is pending,
    /// detections run on every frame the stage can take, so 4 take about 4-6 frames.
    public var overlapSightings = 4
    /// A candidate new picture whose sides run on past at least this many of its corners' 8
    /// continuations, and past at least half of those in view (`OutlineRunOn`), is a block cut
    /// out of a grid (tiles, panes), not a framed picture. On the busy-wall clip (seed 3), the
    /// 2 x 2 tile blocks the detector took ran on along 3 of their 6 continuations in view
    /// (contrast ratios 0.73-1.02, the others 0.01-0.12); the framed picture's detections ran on
    /// along at most 2 of 8 (its frame's inner edge continues into the frame's band).
    public var minimumRunOns = 3
    public var runOn = OutlineRunOn()
    /// While a remembered picture is lost, a frame waits this long (seconds) for the detection started on
    /// it, so that a picture found is drawn from that frame on (the CPU detector takes 10-25 ms
    /// at 640x480 here; the frame has nothing else to do then).
    public var lostDetectionWait = 0.025
    /// Detections with a corner this close (pixels) to the frame's edge are not taken: the
    /// picture is partly out of view and its quad is cut by the edge (a quad shrunk onto the
    /// visible part would be drawn in the wrong place).
    public var edgeMargin = 2.0

    public init() {}

    /// Whether `quad` has a corner within `edgeMargin` of the edge of a `width` x `height` frame.
    func touchesEdge(_ quad: Quad, width: Int, height: Int) -> Bool {
        quad.corners.contains { p in
            p.x < edgeMargin - 0.5 || p.y < edgeMargin - 0.5
                || p.x > Double(width) - 0.5 - edgeMargin || p.y > Double(height) - 0.5 - edgeMargin
        }
    }
}
