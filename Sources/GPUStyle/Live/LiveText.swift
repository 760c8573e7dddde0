import Foundation

/// How `LiveText` reads the text in a video.
public struct LiveTextOptions: Sendable {
    /// Shortest time between two readings (video seconds): two a second at most, on the newest
    /// frame, never queued. A reading of a 640x360 frame takes 70-120 ms on the stage's one core
    /// of the CPU path, of a 1280x720 frame 190-340 ms (docs/live.md): the reader leaves most of
    /// a core to the frames and to other work, and text coming into view is drawn 0.1-0.9 s
    /// later.
    public var interval = 0.5
    /// A line is drawn only while a reading made on a frame at most this much earlier (video
    /// seconds) has seen it there. The trackers carry the lines between readings; a line that
    /// no reading has confirmed for this long (its text changed, or it went out of sight while
    /// its tracker held on) is dropped. A drawn line's reading is up to an interval and two
    /// readings old (the next one is under way): at most 0.6 s at 640x360 and 0.9 s at 720p in
    /// real time here. But readings ran three to four times slower while other work shared the
    /// machine's two cores (before the text kernels were vectorised, 0.8-1.5 s at 720p, and
    /// with 2 s lines of a 720p run went out between readings): 3 s holds them through one slow
    /// reading.
    public var maximumAge = 3.0
    /// All lines are dropped when the frame's `SceneSignature` is further than this (luma
    /// levels) from the previous frame's: a cut (as `LiveDigitsOptions.sceneCut`).
    public var sceneCut: Float = 20
    /// The reader's settings (`gpustyle text`'s defaults).
    public var reading = TextReader.Options()
    /// Each line's tracker: the default checks, on the frame's own pixels up to 1280x720 (the
    /// default working image is half that size at 640x360, where strokes of small text are a
    /// pixel wide: on Fixtures/live-text 13-37 of 30-45 points per line failed the
    /// forward-backward or correlation check while the sign barely moved, and two of its three
    /// lines were lost 16-26 times in 78 frames; on the frame's pixels, none before the fast
    /// pan). A line blurred beyond the checks by a fast pan is dropped: drawn nowhere rather than
    /// somewhere wrong (the blur-tolerant checks kept lines no longer on that clip). Four levels
    /// follow about 35 px a frame; on that clip three and five levels gave the same errors until
    /// the pan, five took 14 ms a frame for the three lines at 720p against 11 (lockstep, CPU).
    /// At most 50 points a line (not 100): the same errors, 11 ms instead of 15 for the three
    /// lines at 720p.
    public var tracker: QuadTrackerOptions = {
        var options = QuadTrackerOptions()
        options.maximumWorkingPixels = 1280 * 720
        options.pyramidLevels = 4
        options.maximumPoints = 50
        return options
    }()
    /// The tracker carrying a reading's new lines from its frame to the current one: the same,
    /// with six levels (it runs once a reading, over the motion of the reading's time).
    public var carrier: QuadTrackerOptions = {
        var options = QuadTrackerOptions()
        options.maximumWorkingPixels = 1280 * 720
        options.pyramidLevels = 6
        return options
    }()
    /// Each line is tracked over its quad widened by this share of its height on every side: a
    /// line's quad is long and thin, and the margin (the sign or page around the text) gives
    /// the motion fit points across the line as well as along it. On Fixtures/live-text (each
    /// line tracked from frame 0 to where it left the view, restarted where it failed), mean
    /// corner error 0.07-0.14 px per line with 1, 0.16-0.32 px with 0.5 (five levels then).
    public var trackingMargin = 1.0
    /// A line with a corner within this many pixels of the frame's edge is not taken from a
    /// reading: it is most likely cut by the edge, and what was read is a part of it (on
    /// Fixtures/live-text, "OWA" of "CAFE ROMA" leaving the view). A tracked line may then move
    /// out of view: its string was read whole.
    public var edgeMargin = 2.0
    /// At most this many lines are followed (the largest): each costs its tracker's time on
    /// every frame, about 1.3 ms at 640x360 and 3 ms at 1280x720 on the CPU path (lockstep,
    /// Fixtures/live-text and its 720p twin): eight lines of a 720p frame take most of a 30 fps
    /// frame's 33 ms.
    public var maximumLines = 8
    /// Draw each character's box (green, as `gpustyle text --overlay`).
    public var showCharacters = true
    /// Draw each line's string above its top-left corner.
    public var showStrings = true
    /// The labels' text size; nil: `LabelStyle.scaled(toHeight:)`.
    public var style: LabelStyle?
    /// Widths of the lines' and the characters' outlines, pixels (0: not drawn).
    public var lineThickness = 2
    public var characterThickness = 1
    /// Wait for each reading before the next frame (reproducible runs: tests, evaluation).
    public var lockstep = false

    public init() {}
}

/// A frame given to the reading stage, with the grey image the trackers use.
public struct TextJob: Sendable {
    let frame: YUVFrame
    let grey: Image
    let fullRange: Bool
    let index: Int
    let time: Double
}

public struct TextOutcome: Sendable {
    let index: Int
    let time: Double
    /// The job's grey image: the reading's lines are carried from it to the current frame.
    let grey: Image
    let lines: [TextLine]
    let error: String?
}

/// What was drawn on one frame.
public struct LiveTextReport: Sendable {
    public struct Line: Sendable {
        /// The same line keeps its id from reading to reading while it is tracked.
        public let id: Int
        /// The line as drawn on this frame: its quad and characters' boxes where they are now,
        /// with the string, confidence and detection score of the reading that last saw it.
        public let line: TextLine
        /// The frame of that reading, how much older (video seconds) it is than this frame, and
        /// the line's quad as read there (in that frame's pixels: what tracking moved to `line`).
        public let readingIndex: Int
        public let age: Double
        public let readQuad: Quad
        /// Where the string's label landed (nil when strings are not drawn).
        public let box: LabelBox?
    }

    public let index: Int
    public var lines: [Line] = []
    /// Lines whose tracking failed on this frame (they left the frame, were covered, or were
    /// blurred beyond the tracker).
    public var lost = 0
    /// The scene changed (`sceneCut`): every line was dropped.
    public var sceneCut = false
    /// A reading was taken on this frame (carried to it from its own frame).
    public var readingIndex: Int?
}

/// Live text: `gpustyle text` on a video, each line's box, characters and string following the
/// text, as Apple's Vision samples run `VNRecognizeTextRequest` on a camera's frames.
///
/// The shape of `LiveDigits`: the `TextReader` runs on its own thread (`AsyncStage`) on the
/// newest frame, at most every `interval`, never queued (frames never wait for it). Each line
/// has its own `QuadTracker`, over the line's quad widened by `trackingMargin`; per frame the
/// trackers follow their lines from the previous frame, and a line whose tracking fails (it
/// left the frame, was covered, was blurred beyond the tracker) is dropped at once. The line's
/// quad and characters are drawn through the homography that takes the tracked region from
/// where the reading saw it to where it is now. A finished reading is carried from its (older)
/// frame to the current one (`carry`: through the motion of the track of a line it saw again,
/// or for new text by tracking from its frame warped by the scene's motion since; a line that
/// cannot be carried is not taken, nor one cut by the frame's edge), then replaces the tracked
/// lines: a line overlapping a tracked one (each one's centre inside the other) takes over its
/// id and restarts its tracker, so labels do not flicker; other lines start new tracks. A
/// tracked line no reading saw stays until `maximumAge` after the last reading that saw it;
/// all go on a scene cut. Drawn as `gpustyle text --overlay` draws: line quads blue, character
/// boxes green, the string in a label above the line's top-left corner (FreeType, as
/// `LiveDigits`' labels).
///
/// Measured (docs/live.md, "Text on live video"; `tools/evaluate_live_text.py`, CPU path, this
/// 2-core Xeon, real time): 30 fps in and out at 640x360 and 1280x720, no input frame dropped;
/// two readings a second, 80-120 ms each at 640x360, 240-340 ms at 720p; tracking the three lines
/// of Fixtures/live-text 4.4-4.8 ms a frame at 640x360, 7.9-10.8 ms at 720p; the drawn quads
/// within 0.05-0.06 px on average (0.15 px at most) of where the truth moves each reading while
/// the sign pans, zooms and rolls; nothing drawn after the text left the view.
public final class LiveText {
    public let options: LiveTextOptions
    public let stage: AsyncStage<TextJob, TextOutcome>
    private let renderer: TextRenderer?

    private struct Track {
        let id: Int
        /// The line as the reading saw it, in the coordinates of the frame where `anchor` is.
        var line: TextLine
        /// The tracked region (the line's quad widened) in that frame, and in the last frame.
        var anchor: Quad
        var region: Quad
        let tracker: QuadTracker
        /// Video time and index of the frame of the last reading that saw the line, and its quad
        /// as read there.
        var confirmedAt: Double
        var readingIndex: Int
        var readQuad: Quad

        /// The line where it is in the last frame: `line` through anchor -> region.
        var current: TextLine? { LiveText.moved(line, from: anchor, to: region) }
    }

    private var tracks: [Track] = []
    private var nextID = 0
    /// Carries a reading's new lines from their frame to the current one.
    private let carrier: QuadTracker
    /// The scene's motion since the frame handed to the reader (the whole frame carried along,
    /// frame by frame, while the reading runs): where a new line's search starts.
    private let scene = CoastingQuad(scene: QuadTracker(options: CoastingQuad.sceneTrackerOptions))
    private let warper = CPUPerspectiveWarper()
    private var lastStart = -Double.infinity
    /// The frame handed to the reader last, and where each tracked line (its id, region and
    /// quad) was in it: a reading of that frame is carried through these tracks' own motion.
    private var submitted: (index: Int, tracks: [(id: Int, region: Quad, quad: Quad)])?
    private var lastSignature: SceneSignature?
    /// Readings made on frames before this one are from another scene.
    private var sceneStart = 0
    private var bitmaps: [String: TextBitmap] = [:]
    private var bitmapSize = 0
    private var trackingTimes: [Double] = []
    private var stageError: String?

    /// `read` finds and reads the text lines of an image; it runs on the stage's thread only,
    /// after the frame's conversion to RGB. `renderer` draws the strings (nil: not drawn).
    public init(options: LiveTextOptions = LiveTextOptions(), renderer: TextRenderer?,
                read: @escaping @Sendable (Image) throws -> [TextLine]) {
        self.options = options
        self.renderer = renderer
        carrier = QuadTracker(options: options.carrier)
        stage = AsyncStage(name: "text") { job in
            do {
                let image = YUVConversion.image(from: job.frame, fullRange: job.fullRange)
                return TextOutcome(index: job.index, time: job.time, grey: job.grey, lines: try read(image), error: nil)
            } catch {
                return TextOutcome(index: job.index, time: job.time, grey: job.grey, lines: [], error: "\(error)")
            }
        }
    }

    /// With a `TextReader` (used only from the stage's thread from here on).
    public convenience init(options: LiveTextOptions = LiveTextOptions(), renderer: TextRenderer?, reader: TextReader) {
        let worker = TextReaderWorker(reader)
        let reading = options.reading
        self.init(options: options, renderer: renderer) { try worker.reader.read($0, options: reading) }
    }

    /// Frame `index` at video time `time` (seconds): tracks the lines into it, takes a finished
    /// reading, hands the frame to the reader if due, and draws the confirmed lines.
    public func process(_ frame: YUVFrame, index: Int, time: Double, fullRange: Bool) throws -> (frame: YUVFrame, report: LiveTextReport) {
        if let stageError { throw LiveStageError(description: "text: \(stageError)") }
        var report = LiveTextReport(index: index)
        let grey = YUVConversion.grey(frame)
        let signature = SceneSignature(frame)
        if let lastSignature, signature.distance(to: lastSignature) > options.sceneCut {
            report.sceneCut = !tracks.isEmpty
            tracks = []
            sceneStart = index
        }
        lastSignature = signature
        let start = MonotonicClock.seconds()
        var kept: [Track] = []
        for var track in tracks {
            guard let tracked = track.tracker.track(grey) else { report.lost += 1; continue }
            track.region = tracked.quad
            kept.append(track)
        }
        tracks = kept
        if scene.quad != nil { _ = scene.advance(grey) }
        if !tracks.isEmpty || scene.quad != nil { trackingTimes.append(MonotonicClock.seconds() - start) }
        take(grey, index: index, report: &report)
        // A millisecond of slack: at 30 fps, frame 15's time (15 / 30) is a hair under 0.5.
        if time - lastStart >= options.interval - 0.001 {
            if stage.submit(TextJob(frame: frame, grey: grey, fullRange: fullRange, index: index, time: time)) {
                lastStart = time
                submitted = (index, tracks.compactMap { track in track.current.map { (track.id, track.region, $0.quad) } })
                if !options.lockstep { scene.start(from: CoastingQuad.whole(grey), motion: nil, in: grey) }
            }
            if options.lockstep {
                stage.waitUntilIdle()
                take(grey, index: index, report: &report)
            }
        }
        if let stageError { throw LiveStageError(description: "text: \(stageError)") }
        tracks.removeAll { time - $0.confirmedAt > options.maximumAge || time < $0.confirmedAt }
        var drawn: [(track: Track, line: TextLine)] = []
        for track in tracks {
            // A region mapped through a homography its own corners define cannot fold, but a
            // line far outside it could; such a line is not drawn.
            guard let line = track.current else { continue }
            drawn.append((track, line))
        }
        guard !drawn.isEmpty else { return (frame, report) }
        var out = frame
        if options.lineThickness > 0 {
            QuadOverlay.draw(drawn.map(\.line.quad), on: &out, fullRange: fullRange, thickness: options.lineThickness,
                             color: TextReport.lineColor)
        }
        if options.showCharacters && options.characterThickness > 0 {
            QuadOverlay.draw(drawn.flatMap { $0.line.characters.map(\.quad) }, on: &out, fullRange: fullRange,
                             thickness: options.characterThickness, color: TextReport.characterColor)
        }
        let style = options.style ?? LabelStyle.scaled(toHeight: frame.height)
        for (track, line) in drawn {
            var box: LabelBox?
            if options.showStrings, let renderer, !line.string.isEmpty {
                let bitmap = try bitmap(for: line.string, pixelSize: style.pixelSize, renderer: renderer)
                // Above the line's top-left corner (as `TextReport.overlay`): the text stays visible.
                let corner = line.quad.topLeft
                let height = bitmap.height + 2 * style.padding
                box = LabelDrawing.draw(bitmap, on: &out, fullRange: fullRange, x: Int(corner.x.rounded()),
                                        y: Int(corner.y.rounded()) - height - 2, style: style)
            }
            report.lines.append(.init(id: track.id, line: line, readingIndex: track.readingIndex, age: time - track.confirmedAt,
                                      readQuad: track.readQuad, box: box))
        }
        return (out, report)
    }

    /// Takes a finished reading, if any: its lines carried to this frame replace the tracked ones.
    private func take(_ grey: Image, index: Int, report: inout LiveTextReport) {
        guard let outcome = stage.take() else { return }
        if let error = outcome.error {
            stageError = stageError ?? error
            return
        }
        guard outcome.index >= sceneStart, outcome.index <= index else { return }
        report.readingIndex = outcome.index
        let largest = outcome.lines.indices.sorted { abs(outcome.lines[$0].quad.area) > abs(outcome.lines[$1].quad.area) }
            .prefix(options.maximumLines).sorted()
        let ours = submitted?.index == outcome.index
        let snapshot = ours ? submitted!.tracks : []
        // The scene's motion from the reading's frame to this one, and the reading's frame warped
        // by it (made when a new line needs it).
        let sceneMotion = ours ? scene.quad.flatMap { try? Homography(from: CoastingQuad.whole(grey).corners, to: $0.corners) } : nil
        scene.stop()
        var aligned: Image?
        var matched = Set<Int>()
        for line in largest.map({ outcome.lines[$0] }) {
            guard !Self.touchesEdge(line.quad, width: grey.width, height: grey.height, margin: options.edgeMargin) else { continue }
            let seen = Self.region(of: line.quad, margin: options.trackingMargin)
            guard let (region, carried) = carry(line, seen: seen, from: outcome, snapshot: snapshot, sceneMotion: sceneMotion,
                                                aligned: &aligned, to: grey, index: index) else { continue }
            let slot = tracks.indices.first { !matched.contains($0) && tracks[$0].current.map { Self.overlap($0.quad, carried.quad) } == true }
            guard slot != nil || tracks.count < options.maximumLines else { continue }
            let tracker = slot.map { tracks[$0].tracker } ?? QuadTracker(options: options.tracker)
            tracker.reset(to: region, in: grey)
            guard tracker.quad != nil else {
                if let slot { tracks[slot].confirmedAt = -.infinity }  // its tracker was reset: it cannot be followed
                continue
            }
            if let slot {
                matched.insert(slot)
                tracks[slot].line = carried
                tracks[slot].anchor = region
                tracks[slot].region = region
                tracks[slot].confirmedAt = outcome.time
                tracks[slot].readingIndex = outcome.index
                tracks[slot].readQuad = line.quad
            } else {
                tracks.append(Track(id: nextID, line: carried, anchor: region, region: region, tracker: tracker,
                                    confirmedAt: outcome.time, readingIndex: outcome.index, readQuad: line.quad))
                matched.insert(tracks.count - 1)
                nextID += 1
            }
        }
        // A track whose tracker could not restart is gone (its confirmation was voided above).
        tracks.removeAll { $0.confirmedAt == -.infinity }
    }

    /// A line read on an older frame (its tracked region there: `seen`), moved to the current
    /// one. A reading of 720p video is a second or more old on a busy machine, and the text can
    /// be 100 px away and turned by then: too far for one tracking step (a reading held 1.7 s on
    /// Fixtures/live-text, the text 82 px away and turned 5 degrees: tracked straight from its
    /// frame, one line of three was lost; `LiveTextTests`). So: through the motion of the
    /// tracked line it overlapped there, which has followed it frame by frame since;
    /// else (new text) by tracking it into this frame from the reading's frame warped by the
    /// scene's motion since (`CoastingQuad`, as `LivePipeline` relocates a picture), so that the
    /// tracker only corrects what the scene's motion got wrong; without that motion, from the
    /// reading's frame itself. Nil when it cannot be followed (it left the view, the scene
    /// changed, it moved too far).
    private func carry(_ line: TextLine, seen: Quad, from outcome: TextOutcome, snapshot: [(id: Int, region: Quad, quad: Quad)],
                       sceneMotion: Homography?, aligned: inout Image?, to frame: Image, index: Int) -> (region: Quad, line: TextLine)? {
        if outcome.index == index { return (seen, line) }
        if let then = snapshot.first(where: { Self.overlap($0.quad, line.quad) }),
           let now = tracks.first(where: { $0.id == then.id }),
           let motion = try? Homography(from: then.region.corners, to: now.region.corners),
           let region = motion.apply(seen), let moved = Self.moved(line, from: seen, to: region) {
            return (region, moved)
        }
        var start = (quad: seen, image: outcome.grey)
        if let sceneMotion, let predicted = sceneMotion.apply(seen) {
            if aligned == nil {
                aligned = try? warper.warp(outcome.grey, outputToSource: sceneMotion.inverse, width: frame.width, height: frame.height)
            }
            if let aligned { start = (predicted, aligned) }
        }
        carrier.reset(to: start.quad, in: start.image)
        defer { carrier.clear() }
        guard let region = carrier.track(frame)?.quad, let moved = Self.moved(line, from: seen, to: region) else { return nil }
        return (region, moved)
    }

    /// Whether `quad` has a corner within `margin` of the edge of a `width` x `height` frame
    /// (pixel centres at integer coordinates, as `LiveVerification.touchesEdge`).
    static func touchesEdge(_ quad: Quad, width: Int, height: Int, margin: Double) -> Bool {
        quad.corners.contains { p in
            !(p.x >= margin - 0.5 && p.y >= margin - 0.5 && p.x <= Double(width) - 0.5 - margin && p.y <= Double(height) - 0.5 - margin)
        }
    }

    /// The region tracked for a line: its quad widened by `margin` times its height on every
    /// side, along the line's own axes (corners TL, TR, BR, BL kept in reading direction).
    static func region(of quad: Quad, margin: Double) -> Quad {
        let along = (quad.topRight - quad.topLeft) + (quad.bottomRight - quad.bottomLeft)
        let across = (quad.bottomLeft - quad.topLeft) + (quad.bottomRight - quad.topRight)
        let height = across.length / 2
        guard along.length > 0, height > 0, margin > 0 else { return quad }
        let a = along * (margin * height / along.length), d = across * (margin * height / across.length)
        return Quad(topLeft: quad.topLeft - a - d, topRight: quad.topRight + a - d,
                    bottomRight: quad.bottomRight + a + d, bottomLeft: quad.bottomLeft - a + d)
    }

    /// `line` (its quad and characters' boxes) through the homography taking `from` to `to`;
    /// nil when there is none or a corner lands behind the camera.
    static func moved(_ line: TextLine, from: Quad, to: Quad) -> TextLine? {
        if from == to { return line }
        guard let motion = try? Homography(from: from.corners, to: to.corners), let quad = motion.apply(line.quad) else { return nil }
        var moved = line
        moved.quad = quad
        moved.characters = []
        for character in line.characters {
            guard let box = motion.apply(character.quad) else { return nil }
            moved.characters.append(TextCharacter(quad: box, character: character.character))
        }
        return moved
    }

    /// The same line: each quad's centre lies inside the other.
    static func overlap(_ a: Quad, _ b: Quad) -> Bool {
        a.contains(b.centre, tolerance: 0) && b.contains(a.centre, tolerance: 0)
    }

    private func bitmap(for text: String, pixelSize: Int, renderer: TextRenderer) throws -> TextBitmap {
        if pixelSize != bitmapSize { bitmaps = [:]; bitmapSize = pixelSize }
        if let bitmap = bitmaps[text] { return bitmap }
        let bitmap = try renderer.render(text, pixelSize: pixelSize)
        // A few lines in view, each read a few ways over a run: a cache this size is never full
        // for long.
        if bitmaps.count > 500 { bitmaps = [:] }
        bitmaps[text] = bitmap
        return bitmap
    }

    /// Seconds spent tracking per frame (with lines) since the last call.
    public func harvestTrackingTimes() -> [Double] {
        defer { trackingTimes = [] }
        return trackingTimes
    }

    /// Waits for the reading in flight (at shutdown).
    public func finish() {
        stage.drain()
    }
}

/// The reader, used only from the reading stage's thread (hence unchecked).
private final class TextReaderWorker: @unchecked Sendable {
    let reader: TextReader
    init(_ reader: TextReader) { self.reader = reader }
}
