import Foundation

/// One network's work as `gpustyle profile` and `gpustyle bench --network` run it: the lowered
/// plan at one input size, its input tensor (from `BenchInput`, prepared as the network's
/// command prepares a photo) and what the backends need besides (the style network's
/// convolution weights and style parameters).
public struct NetworkWorkload {
    public let network: BenchNetwork
    public let plan: ExecutionPlan
    public let inputs: [ExecutionPlan.Buffer: [Float]]
    public let normParameters: [Float]
    /// The style network's convolutions, which its backends take when they are made; empty for
    /// the graph networks (their weights are in the plan).
    public let convolutions: [ConvolutionWeights]

    public var width: Int { plan.inputShape.width }
    public var height: Int { plan.inputShape.height }
    /// "WxH" of the plan's input.
    public var size: String { "\(width)x\(height)" }
    /// The plan's arithmetic: the sum of its steps' FLOPs (`StepCost`).
    public var flops: Double { plan.steps.reduce(0) { $0 + $1.cost.flops } }
    /// The plan's memory traffic: the sum of its steps' bytes read and written (`StepCost`).
    public var bytes: Double { bytes(halfBuffers: []) }
    /// `bytes` with the tensors in `halfBuffers` (fp16 storage, `NetworkBackend.lastRunHalfBuffers`)
    /// counted at 2 bytes per element.
    public func bytes(halfBuffers: Set<ExecutionPlan.Buffer>) -> Double {
        plan.steps.reduce(0) { $0 + $1.cost(halfBuffers: halfBuffers).bytes }
    }

    /// The workload of `network` at `width` x `height` (`BenchNetwork.inputSize` rounds it, or
    /// sets the fixed size). `style` picks the style network's style; `photo`, for the text
    /// networks, replaces the generated page (text-rec: the page's heading) with a photo resized
    /// to the input size. The input's values do not change the work of any layer except GELU,
    /// whose erf is slower where its exp underflows: hence a page of text for the text networks.
    public static func make(_ network: BenchNetwork, width: Int, height: Int, style: Int = 2,
                            photo: Image? = nil) throws -> NetworkWorkload {
        let (w, h) = network.inputSize(width: width, height: height)
        func graphPlan(_ name: String, channels: Int = 3) throws -> (ExecutionPlan, ModelFile) {
            let model = try ModelLibrary.builtin(name)
            return (try GraphLowering.lower(model.graph, input: .init(channels: channels, height: h, width: w)), model)
        }
        switch network {
        case .style:
            let model = try StyleModel.bundled()
            let plan = try model.plan(height: h, width: w)
            return NetworkWorkload(network: network, plan: plan, inputs: [.input: styleInput(plan)],
                                   normParameters: model.normParameters(for: try StyleMix(style: style)),
                                   convolutions: model.convolutions)
        case .classify:
            let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier),
                                                 backend: CPUBackend(weights: []))
            let side = classifier.preprocessing.cropSide
            return NetworkWorkload(network: network, plan: try classifier.lowered(),
                                   inputs: [.input: classifier.preprocessing.tensor(BenchInput.image(width: 2 * side, height: 2 * side))],
                                   normParameters: [], convolutions: [])
        case .faces, .mesh:
            // A photo-like input in [0, 1] (the detector's normalisation is outside its graph).
            let (plan, _) = try graphPlan(network == .faces ? FaceDetector.builtInModel : FaceLandmarker.builtInModel)
            return NetworkWorkload(network: network, plan: plan, inputs: [.input: BenchInput.image(width: w, height: h).rgb],
                                   normParameters: [], convolutions: [])
        case .digits:
            // A glyph as `NoteReader` cuts a marker-written 0: a ring of white ink on black.
            let (plan, model) = try graphPlan(DigitClassifier.BuiltIn.notes.modelName, channels: 1)
            let classifier = try DigitClassifier(backend: CPUBackend(weights: []), model: model)
            return NetworkWorkload(network: network, plan: plan, inputs: [.input: classifier.normalized(ringGlyph())],
                                   normParameters: [], convolutions: [])
        case .textDetection, .textRecognition:
            let detection = network == .textDetection
            let (plan, model) = try graphPlan(detection ? TextDetectionNetwork.builtInModel : TextRecognitionNetwork.builtInModel)
            let image: Image
            if let photo {
                image = photo.resized(width: w, height: h)
            } else {
                let page = try BenchInput.textPage()
                image = detection ? page.resized(width: w, height: h) : BenchInput.textLine(page, width: w)
            }
            return NetworkWorkload(network: network, plan: plan, inputs: [.input: normalised(image, model.metadata)],
                                   normParameters: [], convolutions: [])
        }
    }

    /// `image`'s channels as a model file's metadata normalises them ((x - mean) / std).
    static func normalised(_ image: Image, _ metadata: ModelFile.Metadata) -> [Float] {
        let mean = metadata.mean ?? [0, 0, 0], std = metadata.std ?? [1, 1, 1]
        let plane = image.width * image.height
        return image.rgb.enumerated().map { i, x in (x - mean[i / plane]) / std[i / plane] }
    }

    /// `BenchInput.image` laid out as the style plan's input buffer (planes `planeStride` apart).
    static func styleInput(_ plan: ExecutionPlan) -> [Float] {
        let shape = plan.inputShape
        let image = BenchInput.image(width: shape.width, height: shape.height)
        var input = [Float](repeating: 0, count: plan.bufferFloats[.input]!)
        for c in 0..<3 {
            for i in 0..<(shape.height * shape.width) {
                input[c * shape.planeStride + i] = image.rgb[c * shape.height * shape.width + i]
            }
        }
        return input
    }

    /// A 28x28 glyph in [0, 1], ink 1 on 0: a ring of radius 8 and width 3 around the centre.
    static func ringGlyph() -> [Float] {
        let side = DigitClassifier.side, centre = Float(side - 1) / 2
        return (0..<side * side).map { i in
            let dx = Float(i % side) - centre, dy = Float(i / side) - centre
            return abs((dx * dx + dy * dy).squareRoot() - 8) < 1.5 ? 1 : 0
        }
    }
}
