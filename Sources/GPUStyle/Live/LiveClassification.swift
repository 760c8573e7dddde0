import Foundation

/// How `LiveClassification` labels a video.
public struct LiveClassificationOptions: Sendable {
    /// Shortest time between two classifications (video seconds): at most 10 a second, so a
    /// fast classifier leaves the cores to the frames; one slower than 0.2 s runs back to back.
    public var interval = 0.1
    /// A result is drawn only on frames at most this much later (video seconds) than the frame
    /// it was computed on. At 5 or more classifications a second a fresh result is at most
    /// 0.2 s plus one classification old; 0.5 s tolerates one late result on a busy machine,
    /// while a hand-held camera moves far enough in longer for the label to name what has
    /// left the view (Fixtures/live-pan pans off the picture in 0.3 s).
    public var maximumAge = 0.5
    /// A result is drawn only while the frame's `SceneSignature` is within this distance (luma
    /// levels) of its frame's: above hand-held motion within `maximumAge` (p99 20.9 on the
    /// committed clip; the rare larger moves hide the label until the next result) and below
    /// a change of scene (23-50).
    public var maximumSceneChange: Float = 20
    /// Results less confident than this are not drawn: a 1000-class network's top class at a
    /// few percent is a guess.
    public var minimumConfidence: Float = 0.1
    /// The label's text size; nil: `LabelStyle.scaled(toHeight:)`.
    public var style: LabelStyle?
    /// Where the label's box goes: its top-left corner, moved inside the frame if needed.
    public var position = (x: 8, y: 8)
    /// Wait for each classification before the next frame (reproducible runs: tests, evaluation).
    public var lockstep = false

    public init() {}
}

/// A frame given to the classification stage (as it came: the stage converts it), and what it
/// was found to show.
public struct ClassificationJob: Sendable {
    let frame: YUVFrame
    let fullRange: Bool
    let index: Int
    let time: Double
    let signature: SceneSignature
}

public struct ClassificationOutcome: Sendable {
    let index: Int
    let time: Double
    let signature: SceneSignature
    let top: Classification?
    let error: String?
}

/// What was drawn on one frame, and why not when nothing was.
public struct LiveLabelReport: Sendable, Equatable {
    public enum Omission: String, Sendable {
        /// No classification has finished yet.
        case noResult = "no-result"
        /// The newest result was made on a frame older than `maximumAge`.
        case stale
        /// The frame no longer looks like the one the result was made on.
        case sceneChanged = "scene-changed"
        /// The top class is below `minimumConfidence`.
        case unsure
    }

    public let index: Int
    /// The text drawn ("tabby cat 87 %"), nil when nothing was.
    public var text: String?
    /// The frame the drawn (or withheld) result was computed on.
    public var resultIndex: Int?
    /// This frame's video time minus the result's frame's.
    public var age: Double?
    public var omission: Omission?
    /// Where the label was drawn.
    public var box: LabelBox?
}

/// Live scene classification, as Apple's "Classifying Images with Vision and Core ML" shows it
/// over the camera image: every frame in, one frame out, the newest top class and its
/// confidence drawn in a corner.
///
/// The classifier runs on its own thread (`AsyncStage`) on the newest frame only: a frame is
/// handed over when the stage is idle and `interval` has passed, never queued, so frames never
/// wait for it (except with `lockstep`). Each frame gets the newest result only if it is
/// verified for this frame: made on a frame at most `maximumAge` earlier, of the same scene
/// (`SceneSignature`), confident enough; otherwise nothing is drawn, and nothing before the
/// first result.
///
/// Measured with `gpustyle live --classify --model` on the committed 640x480 clip (CPU path, 2
/// shared cores, realtime pace, branch merged with the graph kernels): with a classifier taking
/// 5, 26, 95 and 210 ms, 30 fps in and out and no input drops in every case; a median frame of
/// 0.7 ms in every case; 9.9, 9.9, 8.4 and 4.1 classifications a second.
public final class LiveClassification {
    public let options: LiveClassificationOptions
    public let stage: AsyncStage<ClassificationJob, ClassificationOutcome>
    private let renderer: TextRenderer
    private var newest: ClassificationOutcome?
    private var lastStart = -Double.infinity
    /// The last label's text and bitmap: the same text is not rendered again every frame.
    private var rendered: (text: String, pixelSize: Int, bitmap: TextBitmap)?
    /// Frames drawn with a label since the last `harvestLabelled`.
    private var labelled = 0
    private var stageError: String?


    /// `classify` returns the classes of an image, most likely first; it runs on the stage's
    /// thread only, after the frame's conversion to RGB (the CPU kernel, `YUVConversion`: off
    /// the frame loop, which then only hands the frame's planes over).
    public init(options: LiveClassificationOptions = LiveClassificationOptions(), renderer: TextRenderer,
                classify: @escaping @Sendable (Image) throws -> [Classification]) {
        self.options = options
        self.renderer = renderer
        stage = AsyncStage(name: "classify") { job in
            do {
                let image = YUVConversion.image(from: job.frame, fullRange: job.fullRange)
                return ClassificationOutcome(index: job.index, time: job.time, signature: job.signature,
                                             top: try classify(image).first, error: nil)
            } catch {
                return ClassificationOutcome(index: job.index, time: job.time, signature: job.signature, top: nil, error: "\(error)")
            }
        }
    }

    /// With an `ImageClassifier` (used only from the stage's thread from here on).
    public convenience init(options: LiveClassificationOptions = LiveClassificationOptions(), renderer: TextRenderer,
                            classifier: ImageClassifier) {
        let worker = ClassifierWorker(classifier)
        self.init(options: options, renderer: renderer) { try worker.classifier.classify($0, top: 1) }
    }

    /// Frame `index` at video time `time` (seconds): hands it to the classifier if due, and
    /// draws the newest verified result on it.
    public func process(_ frame: YUVFrame, index: Int, time: Double, fullRange: Bool) throws -> (frame: YUVFrame, report: LiveLabelReport) {
        if let stageError { throw LiveStageError(description: "classify: \(stageError)") }
        take()
        let signature = SceneSignature(frame)
        // A millisecond of slack: at 30 fps, frame 3's time (3 / 30) is a hair under 0.1.
        if time - lastStart >= options.interval - 0.001 {
            // The planes are shared, not copied (the labelled frame below is a copy on write).
            if stage.submit(ClassificationJob(frame: frame, fullRange: fullRange, index: index, time: time, signature: signature)) {
                lastStart = time
            }
            if options.lockstep {
                stage.waitUntilIdle()
                take()
            }
        }
        if let stageError { throw LiveStageError(description: "classify: \(stageError)") }
        var report = LiveLabelReport(index: index)
        guard let newest else {
            report.omission = .noResult
            return (frame, report)
        }
        report.resultIndex = newest.index
        report.age = time - newest.time
        // A result from a later frame than this one cannot happen in order; it counts as stale.
        guard time - newest.time <= options.maximumAge, time >= newest.time else {
            report.omission = .stale
            return (frame, report)
        }
        guard signature.distance(to: newest.signature) <= options.maximumSceneChange else {
            report.omission = .sceneChanged
            return (frame, report)
        }
        // A broken model's NaN or infinite score is no answer either.
        guard let top = newest.top, top.confidence.isFinite, top.confidence >= options.minimumConfidence else {
            report.omission = .unsure
            return (frame, report)
        }
        let text = Self.text(for: top)
        let style = options.style ?? LabelStyle.scaled(toHeight: frame.height)
        let bitmap = try bitmap(for: text, pixelSize: style.pixelSize)
        var out = frame
        report.box = LabelDrawing.draw(bitmap, on: &out, fullRange: fullRange, x: options.position.x, y: options.position.y,
                                       style: style)
        report.text = text
        labelled += 1
        return (out, report)
    }

    /// "tabby cat 87 %".
    public static func text(for classification: Classification) -> String {
        let label = classification.label.trimmingCharacters(in: .whitespacesAndNewlines)
        let percent = classification.confidence.isFinite ? Int((min(1, max(0, classification.confidence)) * 100).rounded()) : 0
        return "\(label) \(percent) %"
    }

    private func take() {
        guard let outcome = stage.take() else { return }
        if let error = outcome.error {
            stageError = stageError ?? error
            return
        }
        newest = outcome
    }

    private func bitmap(for text: String, pixelSize: Int) throws -> TextBitmap {
        if let rendered, rendered.text == text, rendered.pixelSize == pixelSize { return rendered.bitmap }
        let bitmap = try renderer.render(text, pixelSize: pixelSize)
        rendered = (text, pixelSize, bitmap)
        return bitmap
    }

    /// Frames drawn with a label since the last call.
    public func harvestLabelled() -> Int {
        defer { labelled = 0 }
        return labelled
    }

    /// Waits for the classification in flight (at shutdown).
    public func finish() {
        stage.drain()
    }
}

/// The classifier, used only from the classification stage's thread (hence unchecked).
private final class ClassifierWorker: @unchecked Sendable {
    let classifier: ImageClassifier
    init(_ classifier: ImageClassifier) { self.classifier = classifier }
}
