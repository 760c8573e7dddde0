import Foundation

/// The real-time half of Apple's "Tracking and altering images": every frame in, one frame out.
///
/// Per frame, on the caller's thread: track the picture's quad from the previous frame
/// (`QuadTracking`); take a finished detection, if any, carry it forward to this frame and adopt
/// it; hand the frame to the detection stage (at most every `detectionInterval`, never two in
/// flight) and the quad to the stylize stage (whenever it is idle); warp the newest stylized
/// image onto the quad with a feathered edge. The stages run on their own threads
/// (`AsyncStage`) and skip frames while busy, so a frame never waits for the network.
public final class LivePipeline {
    public let options: LiveOptions
    public let detection: AsyncStage<DetectionJob, DetectionOutcome>
    public let stylization: AsyncStage<StylizeJob, StylizeOutcome>
    private let tracker: QuadTracking
    /// A second tracker, to carry a detection from its (older) frame to the current one.
    private let carrier: QuadTracking
    private let compositor = CPUQuadCompositor()

    private var quad: Quad?
    private var lastSeen = -Double.infinity
    private var lastDetectionStart = -Double.infinity
    private var overlay = OverlayFade()
    /// Detections that disagreed with the tracked quad in a row (a different rectangle, or drift).
    private var disagreements = 0
    /// Seconds spent tracking, since the last `harvestTrackingTimes`.
    private var trackingTimes: [Double] = []
    /// The first failure of a stage (a GPU that died with no fallback): reported by `process`.
    private var stageError: String?

    public struct StageError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(options: LiveOptions, stylizer: Stylizer, detector: RectangleDetector = RectangleDetector(),
                tracker: QuadTracking, carrier: QuadTracking) {
        self.options = options
        self.tracker = tracker
        self.carrier = carrier
        let detectionWorker = DetectionWorker(detector: detector, options: options.detection)
        detection = AsyncStage(name: "detect") { detectionWorker.run($0) }
        let stylizeWorker = StylizeWorker(stylizer: stylizer, strength: options.strength, side: options.stylizeSide)
        stylization = AsyncStage(name: "stylize") { stylizeWorker.run($0) }
    }

    /// Processes frame `index` at video time `time` (seconds) and returns the frame to show.
    public func process(_ frame: Image, index: Int, time: Double) throws -> (image: Image, report: LiveFrameReport) {
        if let error = stageError { throw StageError(description: error) }
        let step = options.step(at: time)
        if let outcome = stylization.take() {
            if let image = outcome.image { overlay.receive(image, step: outcome.step, at: time) }
            if let error = outcome.error { throw StageError(description: "stylize: \(error)") }
        }
        if options.fullFrame {
            stylization.submit(StylizeJob(frame: frame, quad: nil, mix: options.mix(forStep: step), step: step))
            let shown = overlay.image(at: time, duration: options.crossfade)
            let image = shown.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil } ?? frame
            return (image, LiveFrameReport(index: index, state: .fullFrame, quad: nil, overlaid: shown != nil))
        }
        var state = updateQuad(frame, time: time)
        if time - lastDetectionStart >= options.detectionInterval {
            if detection.submit(DetectionJob(frame: frame, index: index)) { lastDetectionStart = time }
            if options.lockstep { detection.waitUntilIdle() }
        }
        guard let quad else {
            overlay.clear()
            return (frame, LiveFrameReport(index: index, state: .searching, quad: nil, overlaid: false))
        }
        if state == .searching { state = .held }
        stylization.submit(StylizeJob(frame: frame, quad: quad, mix: options.mix(forStep: step), step: step))
        guard let picture = overlay.image(at: time, duration: options.crossfade) else {
            return (frame, LiveFrameReport(index: index, state: state, quad: quad, overlaid: false))
        }
        guard let image = try composite(picture, onto: quad, of: frame) else {
            return (frame, LiveFrameReport(index: index, state: state, quad: quad, overlaid: false))
        }
        return (image, LiveFrameReport(index: index, state: state, quad: quad, overlaid: true))
    }

    /// Tracks, adopts a finished detection, and times out a lost picture; the frame's state.
    private func updateQuad(_ frame: Image, time: Double) -> LiveState {
        var state = LiveState.searching
        if tracker.quad != nil {
            let start = MonotonicClock.seconds()
            if let tracked = tracker.track(frame) {
                quad = tracked.quad
                lastSeen = time
                state = .tracked
            }
            trackingTimes.append(MonotonicClock.seconds() - start)
        }
        if let outcome = detection.take() {
            if let error = outcome.error { stageError = "detect: \(error)" }
            if let found = outcome.quad, let carried = carryForward(found, from: outcome.job.frame, to: frame) {
                if adopt(carried, trackingNow: state == .tracked) {
                    tracker.reset(to: carried, in: frame)
                    quad = carried
                    lastSeen = time
                    state = .detected
                }
            }
        }
        if state == .searching && time - lastSeen > options.trackingTimeout {
            quad = nil
        }
        return state
    }

    /// A detection made on an older frame, moved to the current one by tracking it there.
    private func carryForward(_ found: Quad, from older: Image, to frame: Image) -> Quad? {
        carrier.reset(to: found, in: older)
        defer { carrier.clear() }
        return carrier.track(frame)?.quad
    }

    /// Whether to take a detection over the tracked quad: always when nothing is tracked; when
    /// tracking, if it is close to the tracked quad and not inside it (it removes drift), or
    /// after it has disagreed several times in a row (the tracked quad has slid off the picture).
    ///
    /// A close detection that is smaller is the usual flicker of a framed picture's outlines:
    /// from frame to frame the detector may take the frame's inner edge or the matte for the
    /// outline. Like the still detector (`outermost`), the enclosing outline wins: a smaller one
    /// replaces it only after a second of detections in a row that say so (on a clip where the
    /// detector took the inner edge in 4 of 10 frames, taking any close detection gave a mean
    /// corner error of 7 px instead of under 1).
    private func adopt(_ detected: Quad, trackingNow: Bool) -> Bool {
        guard trackingNow, let current = quad else { disagreements = 0; return true }
        let size = max(1, (abs(current.area)).squareRoot())
        let distance = zip(detected.corners, current.corners).map { $0.distance(to: $1) }.max() ?? .infinity
        let shrinks = abs(detected.area) < 0.97 * abs(current.area)
        if distance <= 0.1 * size && !shrinks { disagreements = 0; return true }
        disagreements += 1
        let patience = distance <= 0.1 * size ? Int((1 / options.detectionInterval).rounded()) : 3
        if disagreements >= patience { disagreements = 0; return true }
        return false
    }

    private func composite(_ picture: Image, onto quad: Quad, of frame: Image) throws -> Image? {
        guard (try? quad.validateForWarp()) != nil, let mask = try? QuadMask(quad: quad, feather: options.feather),
              let rectToFrame = try? Homography.rectangle(width: picture.width, height: picture.height, to: quad)
        else { return nil }
        return try compositor.composite(picture, photoToOverlay: rectToFrame.inverse, mask: mask, over: frame)
    }

    /// Seconds per tracked frame since the last call.
    public func harvestTrackingTimes() -> [Double] {
        defer { trackingTimes = [] }
        return trackingTimes
    }

    /// Waits for the stages' jobs in flight (at shutdown).
    public func finish() {
        detection.drain()
        stylization.drain()
    }
}
