import Foundation

/// ONNX in, gpustyle's model format out (`gpustyle convert-model`, and `--model file.onnx`, which
/// converts in memory): the imported graph (batch norm folded, ops mapped by `ONNXImporter`),
/// with what a request needs to use it, and each constant stored in float16 where asked.
public enum ModelConversion {
    /// Which weights are stored in float16 (half the bytes; the values are rounded once, and
    /// computed in float32 as before).
    public enum HalfPrecision: String, Sendable, CaseIterable {
        case none
        /// The weights of fully connected layers only. For the built-in MobileNetV2 this keeps
        /// parity with onnxruntime: measured on the 22 fixture photos, the largest probability
        /// difference is 2.4e-4 with fp16 classifier weights, but 0.020 (and a changed top-5)
        /// with every weight in fp16: batch norm folded into the convolutions widens their range.
        case fullyConnected = "fully-connected"
        case all
    }

    public static func fromONNX(_ data: Data, source: String, metadata: ModelFile.Metadata) throws -> ModelFile {
        let (graph, inputShape) = try ONNXImporter.graph(from: data, source: source)
        var metadata = metadata
        if metadata.input == nil { metadata.input = inputShape }
        if let input = metadata.input { _ = try graph.shapes(input: input) }
        return ModelFile(graph: graph, metadata: metadata)
    }

    /// The weight constants (not biases) the policy stores in float16.
    public static func halfConstants(_ graph: NetworkGraph, _ half: HalfPrecision) -> Set<Int> {
        var constants = Set<Int>()
        for node in graph.nodes {
            switch (node.operation, half) {
            case (_, .none): break
            case (.fullyConnected(let weights, _, _), _): constants.insert(weights)
            case (.convolution(let c), .all): constants.insert(c.weights)
            case (.transposedConvolution(let t), .all): constants.insert(t.weights)
            default: break
            }
        }
        return constants
    }
}
