import Foundation

/// Several requests on one photo, as Vision's `VNImageRequestHandler.perform([...])`: the photo
/// is decoded once and each request reads the same `Image`; the networks share one backend
/// (their plans are lowered once per size and run one after another on it).
public final class ImageAnalyzer {
    /// What can be asked for.
    public enum Request: String, CaseIterable, Sendable {
        case rectangles, faces, classify, digits
    }

    /// Every request's result (nil: not asked for) and the time each took.
    public struct Result {
        public var rectangles: [RectangleObservation]?
        public var faces: [Face]?
        /// One per face: nil where the landmark model saw no face in the crop.
        public var meshes: [FaceMesh?]?
        public var classifications: [Classification]?
        public var notes: [NoteReading]?
        public var seconds: [Request: Double] = [:]
    }

    /// Per-request parameters.
    public struct Options {
        public var rectangles = RectangleDetectionOptions()
        public var faces = FaceDetector.Options()
        public var notes = NoteReader.Options()
        /// Classes reported by `classify`.
        public var top = 5
        public init() {}
    }

    private let detector: RectangleDetector
    private let faceDetector: FaceDetector?
    private let landmarker: FaceLandmarker?
    private let classifier: ImageClassifier?
    private let noteReader: NoteReader?

    /// The stages for the requests to run (a request whose stage is nil is refused by `analyze`).
    public init(detector: RectangleDetector, faceDetector: FaceDetector?, landmarker: FaceLandmarker?,
                classifier: ImageClassifier?, noteReader: NoteReader?) {
        self.detector = detector
        self.faceDetector = faceDetector
        self.landmarker = landmarker
        self.classifier = classifier
        self.noteReader = noteReader
    }

    public func analyze(_ image: Image, requests: [Request], options: Options = Options()) throws -> Result {
        var result = Result()
        for request in requests {
            let start = MonotonicClock.seconds()
            switch request {
            case .rectangles:
                result.rectangles = try detector.detect(image, options: options.rectangles)
            case .faces:
                guard let faceDetector else { preconditionFailure("faces asked for without a face detector") }
                let faces = try faceDetector.detect(image, options: options.faces)
                result.faces = faces
                result.meshes = try landmarker?.meshes(of: faces, in: image) ?? faces.map { _ in nil }
            case .classify:
                guard let classifier else { preconditionFailure("classify asked for without a classifier") }
                result.classifications = try classifier.classify(image, top: options.top)
            case .digits:
                guard let noteReader else { preconditionFailure("digits asked for without a note reader") }
                result.notes = try noteReader.read(image, options: options.notes)
            }
            result.seconds[request] = MonotonicClock.seconds() - start
        }
        return result
    }

    /// The photo with every result drawn: rectangles outlined, notes labelled, faces boxed with
    /// their points and regions, the top class written in the top-left corner.
    public static func overlay(_ result: Result, on image: Image, renderer: TextRenderer) throws -> Image {
        var out = image
        if let rectangles = result.rectangles { out = QuadOverlay.draw(rectangles.map(\.quad), on: out) }
        if let notes = result.notes { out = try DigitsReport.overlay(notes, on: out, renderer: renderer) }
        if let faces = result.faces { out = try FacesReport.overlay(faces, meshes: result.meshes ?? [], on: out, renderer: renderer) }
        if let top = result.classifications?.first {
            let style = LabelStyle.scaled(toHeight: image.height)
            let text = String(format: "%@ %.0f%%", top.label, top.confidence * 100)
            LabelDrawing.draw(try renderer.render(text, pixelSize: style.pixelSize), on: &out, x: 4, y: 4, style: style)
        }
        return out
    }
}
