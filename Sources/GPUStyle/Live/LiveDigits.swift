import Foundation

/// How `LiveDigits` reads the sticky notes in a video.
public struct LiveDigitsOptions: Sendable {
    /// Shortest time between two readings (video seconds): at most 5 a second, so the reader
    /// (150-170 ms a reading at 896x504 on the CPU path) leaves most of a core to the frames.
    public var interval = 0.2
    /// A note is drawn only while a reading made on a frame at most this much earlier (video
    /// seconds) has seen it there. The tracker carries the note between readings; a note that
    /// no reading has confirmed for this long (it was never a note, or the readings stopped
    /// finding it) is dropped. On the CPU path a reading of an 896x504 frame takes 150-170 ms
    /// (median, 2 shared cores) and was at most 0.47 s old when drawn (see below): 1 s
    /// tolerates a note missed by two or three readings in a row, or a reading slowed down
    /// threefold by other work, while a note that has gone goes within a second even if its
    /// tracker holds on.
    public var maximumAge = 1.0
    /// All notes are dropped when the frame's `SceneSignature` is further than this (luma
    /// levels) from the previous frame's: a cut to another scene. Frame-to-frame motion of a
    /// hand-held camera stays well below (the same bound as `LiveClassificationOptions`'s
    /// over half a second); the trackers would most likely fail on a cut anyway, this makes it
    /// certain, and a reading made before the cut is not taken after it.
    public var sceneCut: Float = 20
    /// Also follow and label the notes read as blank ("blank"), as `gpustyle digits` reports
    /// them. Before the reader checked that a note's paper is smooth and each side an edge, the
    /// only false notes on the synthetic clip of `LiveDigitsTests` were two patches of the
    /// wooden desk read blank; since, `tools/evaluate_live_digits.py --pace lockstep` draws no
    /// false label on its 90 frames with blank notes shown.
    public var showBlank = true
    /// The reader's settings (`gpustyle digits`' defaults).
    public var reading = NoteReader.Options()
    /// Each note's tracker. Notes are plain paper: most of the tracker's points lie on the
    /// note's outline (the wood or wall around it) and on the digit; the blur-tolerant checks
    /// keep enough of them while the camera moves.
    public var tracker = QuadTrackerOptions.blurTolerant
    /// The labels' text size; nil: `LabelStyle.scaled(toHeight:)`.
    public var style: LabelStyle?
    /// Width of a note's outline, pixels (0: no outline).
    public var outlineThickness = 3
    /// Wait for each reading before the next frame (reproducible runs: tests, evaluation).
    public var lockstep = false

    public init() {}
}

/// A frame given to the reading stage, with the grey image the trackers use.
public struct DigitsJob: Sendable {
    let frame: YUVFrame
    let grey: Image
    let fullRange: Bool
    let index: Int
    let time: Double
}

public struct DigitsOutcome: Sendable {
    let index: Int
    let time: Double
    /// The job's grey image: the reading's notes are carried from it to the current frame.
    let grey: Image
    let notes: [NoteReading]
    let error: String?
}

/// What was drawn on one frame.
public struct LiveDigitsReport: Sendable {
    public struct Note: Sendable, Equatable {
        /// The same note keeps its id from reading to reading while it is tracked.
        public let id: Int
        /// The label drawn ("7 98%", "?", "blank").
        public let text: String
        /// The note's tracked quad in this frame, where the outline is drawn.
        public let quad: Quad
        /// The frame of the reading that last confirmed the note, and how much older (video
        /// seconds) it is than this frame.
        public let readingIndex: Int
        public let age: Double
        /// Where the label's box landed.
        public let box: LabelBox
    }

    public let index: Int
    public var notes: [Note] = []
    /// Notes whose tracking failed on this frame (they left the frame, were covered, or the
    /// tracker lost them).
    public var lost = 0
    /// The scene changed (`sceneCut`): every note was dropped.
    public var sceneCut = false
    /// A reading was taken on this frame (carried to it from its own frame).
    public var readingIndex: Int?
}

/// Live sticky-note digits: `gpustyle digits` on a video, the label following each note, as
/// Apple's Vision samples combine a detector with a tracker.
///
/// The `NoteReader` runs on its own thread (`AsyncStage`) on the newest frame, at most every
/// `interval`, never queued. Each note has its own `QuadTracker`: per frame the trackers follow
/// their notes from the previous frame (a note whose tracking fails, or which leaves the
/// frame, is dropped at once). A finished reading is carried from its (older) frame to the
/// current one by tracking each of its notes there, then replaces the tracked notes: a note
/// that overlaps a tracked one (each one's centre inside the other) takes over its id and
/// restarts its tracker at the reading's quad, so labels do not flicker; other notes start
/// new tracks. A tracked note the reading did not see stays until `maximumAge` after the last
/// reading that saw it. Only tracked notes confirmed within `maximumAge` are drawn: the
/// outline at the tracked quad and the label above its top-left corner, on the Y4M frame.
///
/// Per-note tracking rather than one homography for the whole scene: the notes can move on
/// their own (a hand sticks one on, or takes it off), each tracker builds its pyramid only
/// around its note, and a note that leaves the view fails its own `minimumVisibleShare` check.
/// It is cheap enough: tracking four 140-px notes takes 3 ms a frame at 896x504 (below).
///
/// Measured with `tools/evaluate_live_digits.py` (`gpustyle live --digits`, release build, CPU
/// path, 2 cores shared with another build, realtime pace) on its synthetic clip
/// (Fixtures/digits/notes-example.jpg seen through an 896x504 window sliding 2 px right and
/// 1 px down per frame and back, 30 fps, 150 frames), four runs (load average 0.6-2.2):
/// 29.4-29.7 fps in and out, no input frame dropped; 4.7-5.0 readings a second (median
/// reading 149-172 ms); a median frame of 4.7-5.5 ms, of which tracking the four notes
/// 2.4-3.2 ms; in every run labels on 145 of 150 frames (from frame 5, when the first reading
/// came back), all four notes on each, every one with its right digit, each note under one id
/// all run long, no false label; mean corner error of the drawn quads (where the outline and
/// the label are) 0.31 px, max 0.35 px; the readings drawn were 0.26-0.28 s old on average,
/// at most 0.47 s.
public final class LiveDigits {
    public let options: LiveDigitsOptions
    public let stage: AsyncStage<DigitsJob, DigitsOutcome>
    private let renderer: TextRenderer

    private struct Track {
        let id: Int
        var note: NoteReading
        var text: String
        var quad: Quad
        let tracker: QuadTracker
        /// Video time and index of the frame of the last reading that saw the note.
        var confirmedAt: Double
        var readingIndex: Int
    }

    private var tracks: [Track] = []
    private var nextID = 0
    /// Carries a reading's notes from their frame to the current one.
    private let carrier: QuadTracker
    private var lastStart = -Double.infinity
    private var lastSignature: SceneSignature?
    /// Readings made on frames before this one are from another scene.
    private var sceneStart = 0
    private var bitmaps: [String: TextBitmap] = [:]
    private var bitmapSize = 0
    private var trackingTimes: [Double] = []
    /// Frames drawn with at least one note since the last `harvestLabelled`.
    private var labelled = 0
    private var stageError: String?


    /// `read` finds the notes of an image; it runs on the stage's thread only, after the
    /// frame's conversion to RGB.
    public init(options: LiveDigitsOptions = LiveDigitsOptions(), renderer: TextRenderer,
                read: @escaping @Sendable (Image) throws -> [NoteReading]) {
        self.options = options
        self.renderer = renderer
        carrier = QuadTracker(options: options.tracker)
        stage = AsyncStage(name: "digits") { job in
            do {
                let image = YUVConversion.image(from: job.frame, fullRange: job.fullRange)
                return DigitsOutcome(index: job.index, time: job.time, grey: job.grey, notes: try read(image), error: nil)
            } catch {
                return DigitsOutcome(index: job.index, time: job.time, grey: job.grey, notes: [], error: "\(error)")
            }
        }
    }

    /// With a `NoteReader` (used only from the stage's thread from here on).
    public convenience init(options: LiveDigitsOptions = LiveDigitsOptions(), renderer: TextRenderer, reader: NoteReader) {
        let worker = NoteReaderWorker(reader)
        let reading = options.reading
        self.init(options: options, renderer: renderer) { try worker.reader.read($0, options: reading) }
    }

    /// Frame `index` at video time `time` (seconds): tracks the notes into it, takes a finished
    /// reading, hands the frame to the reader if due, and draws the confirmed notes.
    public func process(_ frame: YUVFrame, index: Int, time: Double, fullRange: Bool) throws -> (frame: YUVFrame, report: LiveDigitsReport) {
        if let stageError { throw LiveStageError(description: "digits: \(stageError)") }
        var report = LiveDigitsReport(index: index)
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
            track.quad = tracked.quad
            kept.append(track)
        }
        tracks = kept
        if !tracks.isEmpty { trackingTimes.append(MonotonicClock.seconds() - start) }
        take(grey, index: index, report: &report)
        // A millisecond of slack: at 30 fps, frame 6's time (6 / 30) is a hair under 0.2.
        if time - lastStart >= options.interval - 0.001 {
            if stage.submit(DigitsJob(frame: frame, grey: grey, fullRange: fullRange, index: index, time: time)) {
                lastStart = time
            }
            if options.lockstep {
                stage.waitUntilIdle()
                take(grey, index: index, report: &report)
            }
        }
        if let stageError { throw LiveStageError(description: "digits: \(stageError)") }
        tracks.removeAll { time - $0.confirmedAt > options.maximumAge || time < $0.confirmedAt }
        guard !tracks.isEmpty else { return (frame, report) }
        var out = frame
        let style = options.style ?? LabelStyle.scaled(toHeight: frame.height)
        if options.outlineThickness > 0 {
            QuadOverlay.draw(tracks.map(\.quad), on: &out, fullRange: fullRange, thickness: options.outlineThickness)
        }
        for track in tracks {
            let bitmap = try bitmap(for: track.text, pixelSize: style.pixelSize)
            // Above the note's top-left corner (as `DigitsReport.overlay`): the digit stays visible.
            let corner = track.quad.topLeft
            let height = bitmap.height + 2 * style.padding
            let box = LabelDrawing.draw(bitmap, on: &out, fullRange: fullRange, x: Int(corner.x.rounded()),
                                        y: Int(corner.y.rounded()) - height - 2, style: style)
            report.notes.append(.init(id: track.id, text: track.text, quad: track.quad, readingIndex: track.readingIndex,
                                      age: time - track.confirmedAt, box: box))
        }
        labelled += 1
        return (out, report)
    }

    /// Takes a finished reading, if any: its notes carried to this frame replace the tracked ones.
    private func take(_ grey: Image, index: Int, report: inout LiveDigitsReport) {
        guard let outcome = stage.take() else { return }
        if let error = outcome.error {
            stageError = stageError ?? error
            return
        }
        guard outcome.index >= sceneStart, outcome.index <= index else { return }
        report.readingIndex = outcome.index
        var matched = Set<Int>()
        for note in outcome.notes where options.showBlank || note.content != .blank {
            guard let quad = outcome.index == index ? note.quad : carry(note.quad, from: outcome.grey, to: grey) else { continue }
            let tracker: QuadTracker
            let slot = tracks.indices.first { !matched.contains($0) && Self.overlap(tracks[$0].quad, quad) }
            tracker = slot.map { tracks[$0].tracker } ?? QuadTracker(options: options.tracker)
            tracker.reset(to: quad, in: grey)
            guard tracker.quad != nil else { continue }
            var carried = note
            carried.quad = quad
            if let slot {
                matched.insert(slot)
                tracks[slot].note = carried
                tracks[slot].text = DigitsReport.overlayText(carried)
                tracks[slot].quad = quad
                tracks[slot].confirmedAt = outcome.time
                tracks[slot].readingIndex = outcome.index
            } else {
                tracks.append(Track(id: nextID, note: carried, text: DigitsReport.overlayText(carried), quad: quad, tracker: tracker,
                                    confirmedAt: outcome.time, readingIndex: outcome.index))
                matched.insert(tracks.count - 1)
                nextID += 1
            }
        }
    }

    /// A quad from an older frame, moved to the current one by tracking it there; nil when it
    /// cannot be followed (it left the view, or the scene changed).
    private func carry(_ quad: Quad, from older: Image, to frame: Image) -> Quad? {
        carrier.reset(to: quad, in: older)
        defer { carrier.clear() }
        return carrier.track(frame)?.quad
    }

    /// The same note: each quad's centre lies inside the other.
    static func overlap(_ a: Quad, _ b: Quad) -> Bool {
        a.contains(b.centre, tolerance: 0) && b.contains(a.centre, tolerance: 0)
    }

    private func bitmap(for text: String, pixelSize: Int) throws -> TextBitmap {
        if pixelSize != bitmapSize { bitmaps = [:]; bitmapSize = pixelSize }
        if let bitmap = bitmaps[text] { return bitmap }
        let bitmap = try renderer.render(text, pixelSize: pixelSize)
        // Labels are a digit and a percentage: a few hundred at most.
        if bitmaps.count > 2000 { bitmaps = [:] }
        bitmaps[text] = bitmap
        return bitmap
    }

    /// Seconds spent tracking per frame (with notes) since the last call.
    public func harvestTrackingTimes() -> [Double] {
        defer { trackingTimes = [] }
        return trackingTimes
    }

    /// Frames drawn with at least one note since the last call.
    public func harvestLabelled() -> Int {
        defer { labelled = 0 }
        return labelled
    }

    /// Waits for the reading in flight (at shutdown).
    public func finish() {
        stage.drain()
    }
}

/// The reader, used only from the reading stage's thread (hence unchecked).
private final class NoteReaderWorker: @unchecked Sendable {
    let reader: NoteReader
    init(_ reader: NoteReader) { self.reader = reader }
}
