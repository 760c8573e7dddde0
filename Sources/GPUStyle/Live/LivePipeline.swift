import Foundation

/// The real-time half of Apple's "Tracking and altering images": every frame in, one frame out.
///
/// Per frame, on the caller's thread: track the picture's quad from the previous frame
/// (`QuadTracking`) and check that it still looks like the picture (`PictureTemplate`); take a
/// finished detection, if any, carry it forward to this frame and adopt it; hand the frame to
/// the detection stage (at most every `detectionInterval` while tracking, whenever it is idle
/// while the picture is lost, never two in flight) and the quad to the stylize stage (whenever
/// it is idle); warp the newest stylized image onto the quad with a feathered edge. The stages
/// run on their own threads (`AsyncStage`) and skip frames while busy, so a frame never waits
/// for the network.
///
/// The overlay is shown only on a quad that passed the checks of `LiveVerification` on this
/// frame: the tracked quad must look like the template taken when a detection found the
/// picture, and a detection must have confirmed it within `confirmationTimeout`. When either
/// fails the picture is lost on that frame and nothing is drawn until a detection finds it
/// again. A detection that looks like the lost picture takes it back at once; any other is a
/// candidate new picture (`nominate`), taken once a second detection agrees with it: the lost
/// picture's template serves re-identification, it never blocks a new picture (issue 35).
public final class LivePipeline {
    public let options: LiveOptions
    public let detection: AsyncStage<DetectionJob, DetectionOutcome>
    public let stylization: AsyncStage<StylizeJob, StylizeOutcome>
    private let tracker: QuadTracking
    /// A second tracker, to carry a detection from its (older) frame to the current one.
    private let carrier: QuadTracking
    private let compositor = CPUQuadCompositor()
    /// The lost picture's quad while it is out of view.
    private let coasting: CoastingQuad
    /// The frame and quad of the last detection taken: where a picture coming back into view is
    /// found again from (`relocate`).
    private var reference: (frame: Image, quad: Quad)?
    private let referenceWarper = CPUPerspectiveWarper()
    /// Tracks the picture from its warped reference frame into the current one (`relocate`).
    private let relocator = QuadTracker(options: LivePipeline.relocatorOptions)

    /// The relocating tracker's settings: the picture usually comes back during a fast pan,
    /// blurred, and the warped reference frame is sharp (`QuadTrackerOptions.blurTolerant`);
    /// fewer inliers are asked for, as the picture is often partly in view. The template check
    /// and a detection within `recoveryConfirmation` still decide.
    static var relocatorOptions: QuadTrackerOptions {
        var options = QuadTrackerOptions.blurTolerant
        options.minimumInlierShare = 0.3
        return options
    }
    /// The picture's motion in the last tracked frame (to carry it into the frame it was lost in).
    private var lastMotion: Homography?

    /// The picture's quad in the last frame, nil while it is lost.
    private var quad: Quad?
    /// What the picture looks like, from the last detection that confirmed it.
    private var template: PictureTemplate?
    /// The template of a new picture, taken from the detection that confirmed the candidate
    /// (often on a frame of a pan, a few pixels off), until a detection agrees with the track:
    /// until then each near detection is taken and the template retaken from it, without
    /// comparing scores against it (on the `second` clip a new picture's template taken 5.5 px
    /// off made the right detections score lower than the drifting track for 1.3 s).
    private var youngTemplate = false
    /// Pictures let go of for another one, recognised when they come back.
    private var memory = PictureMemory()
    /// False from taking the picture back until a detection agrees with the track within a few
    /// pixels: until then detections run on every frame the stage can take, not at 10 Hz. A
    /// picture taken back on a blurred frame is typically 5-8 px off; at 10 Hz the correction
    /// came three frames later.
    private var settled = true
    /// The track was taken back from the coasting quad and no detection has confirmed it yet:
    /// it must keep scoring as a re-identification does (`reidentifyScore`).
    private var provisional = false
    /// When a detection last confirmed the quad.
    private var lastConfirmed = -Double.infinity
    /// A detection that may be a new picture, with its frame and time: nothing is drawn from it
    /// until a later detection agrees with it carried to that later frame (`nominate`).
    private var candidate: Candidate?
    private struct Candidate {
        /// The frame and quad of its latest sighting.
        var frame: Image
        var quad: Quad
        /// When it was first seen (the tracked picture must not be confirmed since) and last seen.
        var since: Double
        var seen: Double
        /// Detections that agreed with it in a row, the first included.
        var sightings = 1
    }
    /// When the picture was lost (its template is forgotten `forgetAfter` later).
    private var lostAt = -Double.infinity
    private var lastDetectionStart = -Double.infinity
    private var overlay = OverlayFade()
    /// Detections that disagreed with the tracked quad in a row (the inner edge of a frame).
    private var disagreements = 0
    /// Seconds spent tracking, since the last `harvestTrackingTimes`.
    private var trackingTimes: [Double] = []
    /// Losses and re-acquisitions of the same picture since the last `harvestEvents`.
    private var events = (losses: 0, reacquisitions: 0)
    /// The first failure of a stage (a GPU that died with no fallback): reported by `process`.
    private var stageError: String?


    /// `tracker` follows the picture, `carrier` carries detections to the current frame, `scene`
    /// follows the whole scene while the picture is out of view (`CoastingQuad`).
    public convenience init(options: LiveOptions, stylizer: Stylizer, detector: RectangleDetector = RectangleDetector(),
                            tracker: QuadTracking, carrier: QuadTracking, scene: QuadTracking) {
        self.init(options: options, stylizer: stylizer, detectionWorker: DetectionWorker(detector: detector, options: options.detection),
                  tracker: tracker, carrier: carrier, scene: scene)
    }

    init(options: LiveOptions, stylizer: Stylizer, detectionWorker: DetectionWorker, tracker: QuadTracking, carrier: QuadTracking,
         scene: QuadTracking) {
        self.options = options
        self.tracker = tracker
        self.carrier = carrier
        self.coasting = CoastingQuad(scene: scene)
        detection = AsyncStage(name: "detect") { detectionWorker.run($0) }
        let stylizeWorker = StylizeWorker(stylizer: stylizer, strength: options.strength, preserveColor: options.preserveColor,
                                           side: options.stylizeSide, smoothing: options.smoothing)
        stylization = AsyncStage(name: "stylize") { stylizeWorker.run($0) }
    }

    /// Processes frame `index` at video time `time` (seconds) and returns the frame to show.
    public func process(_ frame: Image, index: Int, time: Double) throws -> (image: Image, report: LiveFrameReport) {
        if let error = stageError { throw LiveStageError(description: error) }
        let step = options.step(at: time)
        if let outcome = stylization.take() {
            if let image = outcome.image { overlay.receive(image, step: outcome.step, at: time) }
            if let error = outcome.error { throw LiveStageError(description: "stylize: \(error)") }
        }
        if options.fullFrame {
            stylization.submit(StylizeJob(frame: frame, quad: nil, mix: options.mix(forStep: step), step: step))
            let shown = overlay.image(at: time, duration: options.crossfade)
            let image = shown.flatMap { $0.width == frame.width && $0.height == frame.height ? $0 : nil } ?? frame
            return (image, LiveFrameReport(index: index, state: .fullFrame, quad: nil, overlaid: shown != nil))
        }
        var update = updateQuad(frame, index: index, time: time)
        // While the picture is lost, a detection on every frame the stage can take: it comes
        // back within a few frames of re-entering the view, not at the next 10 Hz slot. Nothing
        // is drawn then, so the frame can wait for it (`lostDetectionWait`) and take the picture
        // back on the frame the detection saw, not the next. (Frames take longer while a picture
        // is lost, 14 ms instead of 5 at 640x480 on the CPU path, still well within 33 ms; with
        // no picture remembered, nothing is waited for.)
        // A candidate new picture is confirmed by the next detection, not the next 10 Hz slot.
        let lost = quad == nil
        if lost || !settled || candidate != nil || time - lastDetectionStart >= options.detectionInterval {
            let submitted = detection.submit(DetectionJob(frame: frame, index: index))
            if submitted { lastDetectionStart = time }
            if options.lockstep {
                detection.waitUntilIdle()
            } else if lost && submitted {
                detection.waitUntilIdle(timeout: options.verification.lostDetectionWait)
            }
            if lost { takeDetection(frame, index: index, time: time, update: &update) }
        }
        var report = LiveFrameReport(index: index, state: update.state, quad: quad, overlaid: false)
        report.score = update.score
        report.loss = update.loss
        report.refused = update.refused
        guard let quad else { return (frame, report) }
        stylization.submit(StylizeJob(frame: frame, quad: quad, mix: options.mix(forStep: step), step: step))
        guard let picture = overlay.image(at: time, duration: options.crossfade),
              let image = try composite(picture, onto: quad, of: frame) else { return (frame, report) }
        report.overlaid = true
        return (image, report)
    }

    private struct Update {
        var state: LiveState
        var score: Double?
        var loss: LiveLoss?
        var refused: LiveRefusal?
    }

    /// Tracks and verifies, adopts a finished detection, drops an unconfirmed track.
    private func updateQuad(_ frame: Image, index: Int, time: Double) -> Update {
        let verification = options.verification
        var update = Update(state: .lost, score: nil, loss: nil)
        let start = MonotonicClock.seconds()
        if let previous = quad {
            if let tracked = tracker.track(frame) {
                let score = template?.score(frame: frame, quad: tracked.quad)
                update.score = score
                if let score, score < (provisional ? verification.reidentifyScore : verification.minimumScore) {
                    lose(.appearance, at: time, coastingFrom: previous, in: frame, into: &update)
                } else {
                    quad = tracked.quad
                    lastMotion = tracked.motion
                    update.state = .tracked
                }
            } else {
                lose(.tracking, at: time, coastingFrom: previous, in: frame, into: &update)
            }
            trackingTimes.append(MonotonicClock.seconds() - start)
        } else if let coasted = coasting.advance(frame) {
            recover(coasted, in: frame, time: time, update: &update)
            trackingTimes.append(MonotonicClock.seconds() - start)
        }
        takeDetection(frame, index: index, time: time, update: &update)
        if let current = quad, time - lastConfirmed > verification.confirmationTimeout {
            lastMotion = nil  // `current` is already this frame's quad: it coasts from here as it is
            lose(.unconfirmed, at: time, coastingFrom: current, in: frame, into: &update)
        }
        if let pending = candidate, time - pending.seen > verification.candidateLifetime { candidate = nil }
        memory.forget(at: time, after: verification.forgetAfter)
        if quad == nil && template != nil && time - lostAt > verification.forgetAfter {
            template = nil
            coasting.stop()
        }
        if quad == nil && template == nil && update.loss == nil { update.state = .searching }
        return update
    }

    /// Takes a finished detection, if any: carried to this frame (unless it was made on it) and
    /// considered.
    private func takeDetection(_ frame: Image, index: Int, time: Double, update: inout Update) {
        guard let outcome = detection.take() else { return }
        if let error = outcome.error { stageError = "detect: \(error)" }
        guard let observation = outcome.found else { return }
        let found = observation.quad
        guard !options.verification.touchesEdge(found, width: frame.width, height: frame.height) else {
            update.refused = .edgeCut
            return
        }
        guard let carried = outcome.job.index == index ? found : carryForward(found, from: outcome.job.frame, to: frame) else {
            update.refused = .notCarried
            return
        }
        consider(carried, measured: observation.measured, in: frame, time: time, update: &update)
    }

    /// Lets the picture go; `last` was its quad in the last frame it was seen in, from which it
    /// coasts out of view.
    private func lose(_ reason: LiveLoss, at time: Double, coastingFrom last: Quad, in frame: Image, into update: inout Update) {
        tracker.clear()
        if template != nil { coasting.start(from: last, motion: lastMotion, in: frame) }
        lastMotion = nil
        quad = nil
        lostAt = time
        disagreements = 0
        events.losses += 1
        update.state = .lost
        update.loss = reason
    }

    /// A detection (carried to this frame): confirms or corrects the tracked quad, or finds the
    /// picture again, or is another rectangle and is left alone.
    ///
    /// A detection whose corners no edges measured (`RectangleObservation.measured`: the learned
    /// finder's proposal alone) confirms the tracked picture and may be a new picture, but it
    /// never moves the tracked quad nor takes a lost picture back. On the edges clip such
    /// detections, made on frames blurred by 19-25 px as the picture came back into view, were
    /// 12-19 px off and re-identified it (the coarse layout matches): 30 overlays more than
    /// 10 px off, against none without them. New pictures still take them: letting only measured
    /// detections nominate cost live-busy's acquisition 5 -> 14 frames and the second clip 0 -> 5
    /// wrong overlays (docs/live.md).
    private func consider(_ detected: Quad, measured: Bool, in frame: Image, time: Double, update: inout Update) {
        let verification = options.verification
        if let current = quad {
            let placement = relation(of: detected, to: current)
            guard measured else {
                if placement == .elsewhere {
                    nominate(detected, in: frame, time: time, update: &update)
                } else {
                    lastConfirmed = time
                    update.refused = .unmeasured
                }
                return
            }
            // A detection replaces the track only if it looks at least as much like the picture:
            // on the committed clip a detection misled by a hand over a corner (26 px off)
            // scored 0.72 where the track scored 0.998.
            let score = template?.score(frame: frame, quad: detected)
            var asGood = true
            if let score, let tracked = update.score { asGood = score >= tracked - verification.scoreMargin }
            switch placement {
            case .agrees:
                // Two independent estimates agree: the template is taken anew from this view.
                if adopt(detected, in: frame, time: time, score: score, refresh: true, update: &update) {
                    settled = true
                    youngTemplate = false
                }
            case .near:
                // Both see the picture here, a few pixels apart: the one that looks more like
                // it wins. (Taking every such detection put the quad 8.7 px off for 15 frames of
                // the committed clip while a hand covered a corner; keeping the track until a
                // second of them agreed kept a poor re-acquisition 5 px off for a second.)
                lastConfirmed = time
                if asGood || youngTemplate {
                    adopt(detected, in: frame, time: time, score: score, refresh: youngTemplate, update: &update)
                } else {
                    update.refused = .worseScore
                }
            case .inside:
                // The inner edge of the frame, most likely: the picture is there (it confirms
                // the track), but the enclosing outline stays unless this goes on for a second.
                lastConfirmed = time
                disagreements += 1
                if disagreements >= Int((1 / options.detectionInterval).rounded()) && asGood {
                    adopt(detected, in: frame, time: time, score: score, update: &update)
                } else {
                    update.refused = .innerEdge
                }
            case .elsewhere:
                // The same picture somewhere else: the track slid off it; the detection wins.
                // Another rectangle (another picture, the real picture while a false start is
                // tracked) is a candidate: it replaces the track once a second detection agrees
                // with it and none confirmed the track meanwhile (`nominate`).
                if let score, score >= verification.reidentifyScore && asGood {
                    adopt(detected, in: frame, time: time, score: score, update: &update)
                } else {
                    nominate(detected, in: frame, time: time, update: &update)
                }
            }
            return
        }
        // Re-identification compares the coarse layout (`smoothing`), which a blurred frame
        // keeps: see `LiveVerification.reidentifySmoothing`. The lost picture is taken back on
        // the first detection that re-identifies; anything else is a candidate new picture.
        if let reidentified = template?.score(frame: frame, quad: detected, smoothing: verification.reidentifySmoothing),
           reidentified >= verification.reidentifyScore {
            guard measured else {
                update.refused = .unmeasured
                return
            }
            if adopt(detected, in: frame, time: time, score: template?.score(frame: frame, quad: detected), update: &update) {
                events.reacquisitions += 1
                settled = false
            }
        } else if let recalled = memory.recognise(frame: frame, quad: detected, smoothing: verification.reidentifySmoothing,
                                                  threshold: verification.reidentifyScore) {
            guard measured else {
                update.refused = .unmeasured
                return
            }
            // A picture let go of for another one, back: taken at once with its own template.
            let previous = (template, reference)
            (template, reference) = (recalled.picture.template, recalled.picture.reference)
            if adopt(detected, in: frame, time: time, score: template?.score(frame: frame, quad: detected), update: &update) {
                memory.forget(recalled.index)
                rememberIfConfirmed(previous.0, reference: previous.1, at: time)
                youngTemplate = false
                overlay.clear()  // the stylized image shown last is of the other picture
                events.reacquisitions += 1
                settled = false
            } else {
                (template, reference) = previous
            }
        } else {
            nominate(detected, in: frame, time: time, update: &update)
        }
    }

    /// A detection that is neither the tracked picture nor the lost one re-identified, and not cut
    /// out of a grid (`OutlineRunOn`; refused: runs-on): the first becomes the candidate (refused:
    /// unconfirmed); a later one that agrees with the candidate
    /// carried to its frame (`candidateAgreement`) makes it the picture, the old template and
    /// stylized image gone. While a picture is tracked, the candidate wins only if no detection
    /// confirmed the tracked one since the candidate was first seen and the tracked one is in
    /// full view (else: old-template).
    private func nominate(_ detected: Quad, in frame: Image, time: Double, update: inout Update) {
        let verification = options.verification
        // A detection centred inside the lost picture's coasting quad while that is partly out of
        // view is the picture's visible part, not a new picture. (On the edges clip, the right
        // half of the picture leaving through the left side was found on two frames and taken as
        // a new picture, drawn 78 px off. Refusing every candidate inside a coasting or tracked
        // quad, whether in view or not, held back the real picture inside a lost or tracked
        // false start's quad on the busy clips: coverage 97 -> 79 % and 90 %.)
        if coasting.quad.map({ verification.touchesEdge($0, width: frame.width, height: frame.height)
                                && $0.contains(detected.centre, tolerance: 0) }) ?? false {
            candidate = nil
            update.refused = .overlaps
            return
        }
        // A detection overlapping the tracked picture (centred inside it, or enclosing its centre,
        // but not enclosing all of it) needs `overlapSightings` agreeing detections in a row, not
        // two: on the committed clip, two detections misled by the hand over the picture replaced
        // it, drawn 50 px off (refusing them all kept a false start on a part of the second
        // picture for a second on the `second` clip, every detection of the whole picture refused).
        // A detection enclosing the whole tracked quad is a candidate like any other: the track
        // was on a part of it.
        let overlapsTracked = quad.map { current in
            !current.corners.allSatisfy { detected.contains($0, tolerance: 0) }
                && (current.contains(detected.centre, tolerance: 0) || detected.contains(current.centre, tolerance: 0))
        } ?? false
        let runOn = verification.runOn.count(detected, in: frame)
        guard runOn.runOn < verification.minimumRunOns || 2 * runOn.runOn < runOn.measured else {
            // The pending candidate goes too: it is most likely the same block, and one detection
            // that passes the check by a hair must not confirm it (on the busy clip a tile block
            // refused on frames 1-3 was confirmed on frame 4 by the candidate of frame 0).
            candidate = nil
            update.refused = .runsOn
            return
        }
        guard var pending = candidate, pending.frame.width == frame.width, pending.frame.height == frame.height,
              let carried = carryForward(pending.quad, from: pending.frame, to: frame),
              candidateAgrees(detected, carried) else {
            candidate = Candidate(frame: frame, quad: detected, since: time, seen: time)
            update.refused = overlapsTracked ? .overlaps : .unconfirmed
            return
        }
        pending.sightings += 1
        (pending.frame, pending.quad, pending.seen) = (frame, detected, time)
        candidate = pending
        if overlapsTracked && pending.sightings < verification.overlapSightings {
            update.refused = .overlaps
            return
        }
        // A tracked picture partly out of view cannot be confirmed (its detections are edge-cut):
        // that is no sign of a false start. (On the edges clip, a wall rectangle took over the
        // picture as it left the view, and was drawn 78 px off when the picture came back.)
        if let current = quad, lastConfirmed >= pending.since || verification.touchesEdge(current, width: frame.width, height: frame.height) {
            candidate = Candidate(frame: frame, quad: detected, since: time, seen: time)
            update.refused = .oldTemplate
            return
        }
        let previous = (template, reference)
        template = nil
        reference = nil
        guard adopt(detected, in: frame, time: time, score: nil, update: &update) else {
            (template, reference) = previous
            update.refused = .untrackable
            return
        }
        candidate = nil
        rememberIfConfirmed(previous.0, reference: previous.1, at: time)
        overlay.clear()  // a new picture: the stylized image of the old one must not be shown on it
        youngTemplate = true
        settled = false
    }

    /// Keeps a picture let go of for another one in `memory`, unless its template is still young:
    /// a picture no detection ever agreed with may be a false start. (On the `second` clip a false
    /// start on a part of the second picture, remembered, was taken back at once when the camera
    /// turned to that picture again, and drawn 90 px off for 13 frames.)
    private func rememberIfConfirmed(_ template: PictureTemplate?, reference: (frame: Image, quad: Quad)?, at time: Double) {
        guard let template, !youngTemplate else { return }
        memory.remember(template, reference: reference, at: time)
    }

    /// Whether every corner of `detected` is within `LiveVerification.candidateAgreement` (or
    /// that share of the quad's size, if more) of the candidate's carried corners.
    private func candidateAgrees(_ detected: Quad, _ carried: Quad) -> Bool {
        let verification = options.verification
        let size = max(1, abs(carried.area).squareRoot())
        return detected.largestCornerDistance(to: carried) <= max(verification.candidateAgreement, verification.candidateAgreementShare * size)
    }

    /// The coasting quad of the lost picture, back in view: made exact by `relocate`, and taken
    /// back when it then looks like the picture (`reidentifyScore`) on at least
    /// `recoveryVisibleShare` of it in view. A detection must then confirm it within
    /// `recoveryConfirmation`.
    private func recover(_ coasted: Quad, in frame: Image, time: Double, update: inout Update) {
        let verification = options.verification
        guard let template,
              TrackedQuadCheck.visibleShare(coasted, width: frame.width, height: frame.height) >= verification.recoveryVisibleShare,
              let found = relocate(coasted, in: frame),
              TrackedQuadCheck.visibleShare(found, width: frame.width, height: frame.height) >= verification.recoveryVisibleShare,
              let score = template.score(frame: frame, quad: found), score >= verification.reidentifyScore else { return }
        guard start(found, in: frame, confirmedAt: time - verification.confirmationTimeout + verification.recoveryConfirmation,
                    provisional: true) else { return }
        settled = false
        events.reacquisitions += 1
        update.state = .tracked
        update.score = score
    }

    /// The picture's quad in `frame` near `predicted`: the reference frame (the last detection's)
    /// is warped so that its quad lands on `predicted`, and the picture is tracked from that
    /// warped frame into this one like from a previous frame. The coasting quad is typically
    /// 10-15 px off when the picture comes back (its corners were out of view when it was lost,
    /// and the scene's motion drifts), within the tracker's reach (about 70 px at 640x480);
    /// the tracker brings it to the picture.
    private func relocate(_ predicted: Quad, in frame: Image) -> Quad? {
        guard let reference, reference.frame.width == frame.width, reference.frame.height == frame.height,
              let referenceToFrame = try? Homography(from: reference.quad.corners, to: predicted.corners),
              let warped = try? referenceWarper.warp(reference.frame, outputToSource: referenceToFrame.inverse,
                                                      width: frame.width, height: frame.height) else { return nil }
        relocator.reset(to: predicted, in: warped)
        defer { relocator.clear() }
        return relocator.track(frame)?.quad
    }

    /// Takes a detection with its `score` against the template: the tracker restarts from it.
    /// The template is taken anew (`refresh`) only where the detection agrees with the track
    /// and matched the old template well (`LiveVerification.refreshScore`), or for a new
    /// picture: a detector's error must not become the reference (taking it from every
    /// detection that scored 0.9 let a re-acquisition 6 px off become the reference, after which
    /// a track 14 px off scored higher than the right quad).
    @discardableResult
    private func adopt(_ detected: Quad, in frame: Image, time: Double, score: Double?, refresh: Bool = false,
                       update: inout Update) -> Bool {
        guard start(detected, in: frame, confirmedAt: time, provisional: false) else {
            update.refused = .untrackable
            return false
        }
        if template == nil || (refresh && (youngTemplate || (score ?? 1) >= options.verification.refreshScore)),
           let fresh = PictureTemplate(frame: frame, quad: detected) { template = fresh }
        reference = (frame, detected)
        update.state = .detected
        update.loss = nil
        update.score = score
        update.refused = nil
        return true
    }

    /// Tracks `quad` from `frame` on, as confirmed at `confirmedAt`; false when the tracker
    /// cannot start from it.
    private func start(_ quad: Quad, in frame: Image, confirmedAt: Double, provisional: Bool) -> Bool {
        tracker.reset(to: quad, in: frame)
        guard tracker.quad != nil else { return false }
        coasting.stop()
        lastMotion = nil
        self.quad = quad
        self.provisional = provisional
        lastConfirmed = confirmedAt
        disagreements = 0
        return true
    }

    private enum Relation { case agrees, near, inside, elsewhere }

    /// Corners of a detection within this many pixels of the tracked quad's (or
    /// `agreementShare` of its size, if more) agree with it: the detection replaces the track
    /// and removes its drift. On the committed clip, detections adopted from up to a tenth of
    /// the quad's size away put the quad 8.7 px off for 15 frames while a hand covered a
    /// corner (the tracker itself was within 0.5 px).
    static let agreementDistance = 3.0
    static let agreementShare = 0.01
    /// A detection inside the tracked quad with less than this share of its area is taken for
    /// the frame's inner edge (frames are 4-9 % of a picture's width per side: 0.67-0.85 of the
    /// area). With 0.97, a correct detection of a picture tracked 5 px too large counted as an
    /// inner edge, and the track kept its error for over a second.
    static let innerEdgeAreaRatio = 0.92

    /// How a detection relates to the tracked quad: agrees (every corner close), near (within
    /// a tenth of its size, as both see the same picture) or inside it (smaller: the usual
    /// flicker of a framed picture's outlines, where the detector takes the frame's inner edge
    /// or the matte for the outline from frame to frame; like the still detector's
    /// `outermost`, the enclosing outline wins: on a clip where the detector took the inner
    /// edge in 4 of 10 frames, taking any close detection gave a mean corner error of 7 px
    /// instead of under 1), or elsewhere.
    private func relation(of detected: Quad, to current: Quad) -> Relation {
        let size = max(1, (abs(current.area)).squareRoot())
        let distance = detected.largestCornerDistance(to: current)
        guard distance <= 0.1 * size else { return .elsewhere }
        if abs(detected.area) < Self.innerEdgeAreaRatio * abs(current.area) { return .inside }
        return distance <= max(Self.agreementDistance, Self.agreementShare * size) ? .agrees : .near
    }

    /// A detection made on an older frame, moved to the current one by tracking it there.
    private func carryForward(_ found: Quad, from older: Image, to frame: Image) -> Quad? {
        carrier.reset(to: found, in: older)
        defer { carrier.clear() }
        return carrier.track(frame)?.quad
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

    /// Losses and re-acquisitions of the same picture since the last call.
    public func harvestEvents() -> (losses: Int, reacquisitions: Int) {
        defer { events = (0, 0) }
        return events
    }

    /// Waits for the stages' jobs in flight (at shutdown).
    public func finish() {
        detection.drain()
        stylization.drain()
    }
}
