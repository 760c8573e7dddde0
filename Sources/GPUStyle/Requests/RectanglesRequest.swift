import Foundation

/// Rectangles in the photo, as `gpustyle detect` finds them (Vision's
/// `VNDetectRectanglesRequest`).
public struct RectanglesRequest: CatalogueRequest {
    public static let name: RequestName = .rectangles
    /// The rectangle detector's lane: its requests (rectangles, digits) share one detector and
    /// its edges of the photo (`RectangleDetector.edges(of:sharedIn:)`).
    public static let lane = "rectangle detector"

    public let detector: RectangleDetector
    public var options: RectangleDetectionOptions

    public init(detector: RectangleDetector, options: RectangleDetectionOptions = RectangleDetectionOptions()) {
        self.detector = detector
        self.options = options
    }

    public init(stages: AnalysisStages) throws {
        self.init(detector: try stages.detector())
    }

    public func perform(_ image: Image, in lane: AnalysisLane) throws -> [RectangleObservation] {
        try detector.detect(image, edges: try detector.edges(of: image, sharedIn: lane), options: options)
    }

    public static func jsonItems(_ output: [RectangleObservation], width: Int, height: Int) throws -> Any {
        DetectionReport.items(output, width: width, height: height)
    }

    public static func text(_ output: [RectangleObservation], file: String) -> String {
        indented(DetectionReport.text(output, width: 0, height: 0))
    }

    /// Outlines, under every label.
    public static let overlayLayer = 0

    public static func overlay(_ output: [RectangleObservation], on image: Image, renderer: TextRenderer) throws -> Image {
        QuadOverlay.draw(output.map(\.quad), on: image)
    }
}

extension RequestName {
    public static let rectangles: RequestName = "rectangles"
}

extension ImageAnalyzer.Result {
    /// The rectangles request's observations, best first.
    public var rectangles: [RectangleObservation]? {
        get { self[RectanglesRequest.self] }
        set { self[RectanglesRequest.self] = newValue }
    }
}

extension RectangleDetector {
    /// `edges(of: image)`, made once per lane for the lane's requests on this detector: the
    /// rectangles and the note finder share the edge stage's output (its few milliseconds,
    /// docs/usage.md#several-requests-on-one-photo-analyze).
    public func edges(of image: Image, sharedIn lane: AnalysisLane) throws -> Edges {
        try lane.shared(SharedEdges(detector: ObjectIdentifier(self))) { try edges(of: image) }
    }
}

/// The key of a detector's edges in its lane (`AnalysisLane.shared`).
private struct SharedEdges: Hashable {
    let detector: ObjectIdentifier
}
