import Foundation

/// What the photo shows, as `gpustyle classify` says: the built-in classifier's top classes
/// (Vision's `VNClassifyImageRequest`).
public struct ClassifyRequest: CatalogueRequest {
    public static let name: RequestName = .classify
    /// `classify --json`'s key.
    public static let jsonKey = "classifications"

    public let classifier: ImageClassifier
    /// Classes reported.
    public var top: Int

    public init(classifier: ImageClassifier, top: Int = 5) {
        self.classifier = classifier
        self.top = top
    }

    /// The built-in classifier (`ModelLibrary.defaultClassifier`) on a backend of its own.
    public init(stages: AnalysisStages) throws {
        self.init(classifier: try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: stages.backend()))
    }

    public func perform(_ image: Image, in lane: AnalysisLane) throws -> [Classification] {
        try classifier.classify(image, top: top)
    }

    public static func jsonItems(_ output: [Classification], width: Int, height: Int) throws -> Any {
        try ClassificationReport.items(output)
    }

    /// `classify`'s lines as they are (they start with the percentage's padding).
    public static func text(_ output: [Classification], file: String) -> String {
        ClassificationReport.text(output, file: file, showFile: false)
    }

    /// The caption in the top-left corner, over everything.
    public static let overlayLayer = 3

    /// The top class and its confidence written in the top-left corner.
    public static func overlay(_ output: [Classification], on image: Image, renderer: TextRenderer) throws -> Image {
        guard let top = output.first else { return image }
        var out = image
        let style = LabelStyle.scaled(toHeight: image.height)
        let text = String(format: "%@ %.0f%%", top.label, top.confidence * 100)
        LabelDrawing.draw(try renderer.render(text, pixelSize: style.pixelSize), on: &out, x: 4, y: 4, style: style)
        return out
    }
}

extension RequestName {
    public static let classify: RequestName = "classify"
}

extension ImageAnalyzer.Result {
    /// The classify request's classes, most likely first.
    public var classifications: [Classification]? {
        get { self[ClassifyRequest.self] }
        set { self[ClassifyRequest.self] = newValue }
    }
}
