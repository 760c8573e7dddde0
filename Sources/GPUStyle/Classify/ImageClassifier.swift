/// One class of a classifier's answer.
public struct Classification: Sendable, Equatable, Codable {
    public let index: Int
    public let label: String
    public let confidence: Float
    public init(index: Int, label: String, confidence: Float) {
        self.index = index
        self.label = label
        self.confidence = confidence
    }

    /// The class indices, most probable first (ties: the lower index first).
    public static func order(_ probabilities: [Float]) -> [Int] {
        probabilities.indices.sorted { (probabilities[$0], $1) > (probabilities[$1], $0) }
    }
}

/// Scene classification (as Vision's `VNClassifyImageRequest` / a Core ML classifier): an image
/// in, the most likely classes out. The model is any `ModelFile` whose graph maps a 3-channel
/// image to one score per class; a softmax is appended when the graph ends in raw scores, so the
/// probabilities are computed on the device with the rest.
public final class ImageClassifier {
    public let model: ModelFile
    public let backend: NetworkBackend
    public let preprocessing: ClassifierInput
    private let graph: NetworkGraph
    private var plan: ExecutionPlan?

    public init(model: ModelFile, backend: NetworkBackend) throws {
        self.model = model
        self.backend = backend
        var input = ClassifierInput()
        if let side = model.metadata.input, side.height == side.width {
            input.cropSide = side.height
            // torchvision's recipe resizes to 256 for a 224 crop: keep that ratio.
            input.resizeShorterSide = Int((Double(side.height) * 256 / 224).rounded())
        }
        if let mean = model.metadata.mean, mean.count == 3 { input.mean = mean }
        if let std = model.metadata.std, std.count == 3 { input.standardDeviation = std }
        preprocessing = input
        graph = ImageClassifier.withSoftmax(model.graph)
        let shape = NetworkGraph.Shape(channels: 3, height: input.cropSide, width: input.cropSide)
        let shapes = try graph.shapes(input: shape)
        let classes = shapes[graph.output]!
        guard classes.height == 1, classes.width == 1 else {
            throw GraphError("\(model.metadata.name) is not a classifier: its output is \(classes), not one score per class")
        }
        if let labels = model.metadata.labels, labels.count != classes.channels {
            throw GraphError("\(model.metadata.name) has \(labels.count) labels for \(classes.channels) classes")
        }
    }

    /// The graph with a softmax after its output unless it ends in one.
    static func withSoftmax(_ graph: NetworkGraph) -> NetworkGraph {
        if graph.nodes.last.map({ $0.operation == .softmax && $0.output == graph.output }) == true { return graph }
        var graph = graph
        graph.nodes.append(.init(name: "probabilities", operation: .softmax, inputs: [graph.output], output: graph.tensorCount))
        graph.output = graph.tensorCount
        graph.tensorCount += 1
        return graph
    }

    /// The plan the classifier runs (made once).
    public func lowered() throws -> ExecutionPlan {
        if let plan { return plan }
        let side = preprocessing.cropSide
        let lowered = try GraphLowering.lower(graph, input: .init(channels: 3, height: side, width: side))
        plan = lowered
        return lowered
    }

    /// Class probabilities for a network input (`preprocessing.tensor`, [3][side][side]).
    public func probabilities(tensor: [Float]) throws -> [Float] {
        let side = preprocessing.cropSide
        precondition(tensor.count == 3 * side * side, "the input must be 3 x \(side) x \(side)")
        let plan = try lowered()
        let result = try backend.run(plan, inputs: [.input: tensor], normParameters: [], affine: nil, outputs: [.result])
        return Array(result[.result]!.prefix(plan.outputShape.channels))
    }

    /// The `top` most likely classes, most likely first.
    public func classify(_ image: Image, top: Int = 5) throws -> [Classification] {
        ranked(try probabilities(tensor: preprocessing.tensor(image)), top: top)
    }

    public func ranked(_ probabilities: [Float], top: Int) -> [Classification] {
        Classification.order(probabilities).prefix(max(0, top)).map { index in
            Classification(index: index, label: model.metadata.labels?[index] ?? "class \(index)",
                           confidence: probabilities[index])
        }
    }
}
