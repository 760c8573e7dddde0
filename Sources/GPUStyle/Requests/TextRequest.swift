import Foundation

/// The text in the photo, as `gpustyle text` reads it: every line's box, what it says and each
/// character's box (Vision's `VNRecognizeTextRequest`, and `VNDetectTextRectanglesRequest` with
/// `reportCharacterBoxes`).
public struct TextRequest: CatalogueRequest {
    public typealias Output = [TextLine]

    public static let name: RequestName = .text

    public let reader: TextReader
    public var options: TextReader.Options

    public init(reader: TextReader, options: TextReader.Options = TextReader.Options()) {
        self.reader = reader
        self.options = options
    }

    /// Both text networks on one backend of their own (its own lane).
    public init(stages: AnalysisStages) throws {
        self.init(reader: try TextReader(backend: try stages.backend()))
    }

    public func perform(_ image: Image, in lane: AnalysisLane) throws -> [TextLine] {
        try reader.read(image, options: options)
    }

    public static var jsonKey: String { "text" }

    public static func jsonItems(_ output: [TextLine], width: Int, height: Int) throws -> Any {
        TextReport.items(output, detectOnly: false)
    }

    public static func text(_ output: [TextLine], file: String) -> String {
        indented(TextReport.text(output, file: file, showFile: false, detectOnly: false))
    }

    /// Over the rectangles' outlines, under the faces and the class label.
    public static let overlayLayer = 1

    public static func overlay(_ output: [TextLine], on image: Image, renderer: TextRenderer) throws -> Image {
        try TextReport.overlay(output, on: image, renderer: renderer)
    }
}

extension RequestName {
    public static let text: RequestName = "text"
}

extension ImageAnalyzer.Result {
    /// The text request's lines.
    public var text: [TextLine]? { self[TextRequest.self] }
}
