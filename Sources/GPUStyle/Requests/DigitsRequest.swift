import Foundation

/// The digit on each sticky note in the photo, as `gpustyle digits` reads them. It runs in
/// the rectangles' lane: its note finder is their detector, and the two share its edges of the
/// photo.
public struct DigitsRequest: CatalogueRequest {
    public static let name: RequestName = .digits
    public static let lane = RectanglesRequest.lane
    /// `digits --json`'s key.
    public static let jsonKey = "notes"

    public let reader: NoteReader
    public var options: NoteReader.Options

    public init(reader: NoteReader, options: NoteReader.Options = NoteReader.Options()) {
        self.reader = reader
        self.options = options
    }

    /// The lane's rectangle detector, a warper, and the digit classifier on a backend of its own.
    public init(stages: AnalysisStages) throws {
        self.init(reader: NoteReader(detector: try stages.detector(), warper: try stages.warper(),
                                     classifier: try DigitClassifier(backend: stages.backend())))
    }

    public func perform(_ image: Image, in lane: AnalysisLane) throws -> [NoteReading] {
        try reader.read(image, edges: try reader.detector.edges(of: image, sharedIn: lane), options: options)
    }

    public static func jsonItems(_ output: [NoteReading], width: Int, height: Int) throws -> Any {
        DigitsReport.items(output)
    }

    public static func text(_ output: [NoteReading], file: String) -> String {
        indented(DigitsReport.text(output, file: file, showFile: false))
    }

    /// Over the rectangles' outlines, under the faces.
    public static let overlayLayer = 1

    public static func overlay(_ output: [NoteReading], on image: Image, renderer: TextRenderer) throws -> Image {
        try DigitsReport.overlay(output, on: image, renderer: renderer)
    }
}

extension RequestName {
    public static let digits: RequestName = "digits"
}

extension ImageAnalyzer.Result {
    /// The digits request's notes, best detection first.
    public var notes: [NoteReading]? {
        get { self[DigitsRequest.self] }
        set { self[DigitsRequest.self] = newValue }
    }
}
