import Foundation

/// Several requests on one photo, as Vision's `VNImageRequestHandler.perform([...])`: the photo
/// is decoded once and each request reads the same `Image`.
///
/// The requests run together, in lanes on their own threads: rectangles and digits (which share
/// one rectangle detector) one after the other in one lane, faces in another, classify in a
/// third; the CPU kernels' worker pool takes one lane's job at a time and the others run on
/// their own threads meanwhile, and on Vulkan each lane submits its own command buffers. A
/// lane's stages must not share a backend (or a detector) with another lane's.
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
    public struct Options: Sendable {
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

    /// The lanes the requests run in: each lane's requests one after another, in the order asked.
    static func lanes(_ requests: [Request]) -> [[Request]] {
        let lanes: [[Request]] = [requests.filter { $0 == .rectangles || $0 == .digits }, requests.filter { $0 == .faces },
                                  requests.filter { $0 == .classify }]
        return lanes.filter { !$0.isEmpty }
    }

    /// The results of `requests`; each one's seconds are its own lane's time for it.
    public func analyze(_ image: Image, requests: [Request], options: Options = Options()) throws -> Result {
        let lanes = Self.lanes(requests)
        let outcomes = LaneOutcomes(count: lanes.count)
        let analyzer = UncheckedAnalyzer(self)
        DispatchQueue.concurrentPerform(iterations: lanes.count) { lane in
            var partial = Result()
            // Rectangles and digits in one lane share the detector's edge stage on the photo.
            let sharing = lanes[lane].contains(.rectangles) && lanes[lane].contains(.digits)
            var edges: RectangleDetector.Edges?
            do {
                for request in lanes[lane] {
                    try analyzer.analyzer.run(request, on: image, options: options, shareEdges: sharing, edges: &edges, into: &partial)
                }
                outcomes.set(lane, .success(partial))
            } catch {
                outcomes.set(lane, .failure(error))
            }
        }
        var result = Result()
        for outcome in outcomes.all {
            let partial = try outcome.get()
            result.rectangles = partial.rectangles ?? result.rectangles
            result.faces = partial.faces ?? result.faces
            result.meshes = partial.meshes ?? result.meshes
            result.classifications = partial.classifications ?? result.classifications
            result.notes = partial.notes ?? result.notes
            result.seconds.merge(partial.seconds) { $1 }
        }
        return result
    }

    /// One request, on the calling lane's thread.
    /// With `shareEdges`, the rectangle detector's edges of the photo are made by the first
    /// request that needs them and kept in `edges` for the next.
    private func run(_ request: Request, on image: Image, options: Options, shareEdges: Bool, edges: inout RectangleDetector.Edges?,
                     into result: inout Result) throws {
        let start = MonotonicClock.seconds()
        if shareEdges, edges == nil, request == .rectangles || request == .digits { edges = try detector.edges(of: image) }
        switch request {
        case .rectangles:
            result.rectangles = try detector.detect(image, edges: edges, options: options.rectangles)
        case .faces:
            guard let faceDetector else { preconditionFailure("faces asked for without a face detector") }
            guard let landmarker else { preconditionFailure("faces asked for without a landmark model") }
            let found = try landmarker.verified(try faceDetector.detect(image, options: options.faces), in: image)
            result.faces = found.faces
            result.meshes = found.meshes
        case .classify:
            guard let classifier else { preconditionFailure("classify asked for without a classifier") }
            result.classifications = try classifier.classify(image, top: options.top)
        case .digits:
            guard let noteReader else { preconditionFailure("digits asked for without a note reader") }
            result.notes = try noteReader.read(image, edges: edges, options: options.notes)
        }
        result.seconds[request] = MonotonicClock.seconds() - start
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

/// The analyzer as the lanes see it: each of its stages is used by one lane only (hence unchecked).
private final class UncheckedAnalyzer: @unchecked Sendable {
    let analyzer: ImageAnalyzer
    init(_ analyzer: ImageAnalyzer) { self.analyzer = analyzer }
}

/// Each lane's result or error, written once by its lane.
private final class LaneOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Swift.Result<ImageAnalyzer.Result, Error>?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func set(_ lane: Int, _ outcome: Swift.Result<ImageAnalyzer.Result, Error>) { lock.withLock { outcomes[lane] = outcome } }

    /// In lane order (the first lane's error is the one thrown).
    var all: [Swift.Result<ImageAnalyzer.Result, Error>] { lock.withLock { outcomes.map { $0! } } }
}
