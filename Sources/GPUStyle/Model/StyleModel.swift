import Foundation

/// The multi-style network's weights, checked against `StyleNetwork.layers`.
public final class StyleModel: Sendable {
    /// Per layer, ONNX layout [Cout][Cin][K][K].
    public let convolutionWeights: [[Float]]
    /// Per layer, [26][Cout] each.
    public let gamma: [[Float]]
    public let beta: [[Float]]
    /// The network with these weights (`StyleNetwork.graph`).
    public let graph: NetworkGraph

    /// The network bundled in the binary (`Weights/multistyle26.gpsw`).
    public static func bundled() throws -> StyleModel {
        guard let encoded = EmbeddedWeights.base64["multistyle26"], let data = Data(base64Encoded: encoded) else {
            throw TensorFile.FormatError(description: "bundled weights are missing from this build")
        }
        return try StyleModel(tensors: TensorFile.parse(data))
    }

    public init(tensors: [String: NamedTensor]) throws {
        func tensor(_ name: String, _ shape: [Int]) throws -> [Float] {
            guard let t = tensors[name] else { throw TensorFile.FormatError(description: "weights lack \(name)") }
            guard t.shape == shape else {
                throw TensorFile.FormatError(description: "\(name) has shape \(t.shape), expected \(shape)")
            }
            return t.values
        }
        var w: [[Float]] = [], g: [[Float]] = [], b: [[Float]] = []
        for layer in StyleNetwork.layers {
            let c = layer.outputChannels
            w.append(try tensor("\(layer.name).w", [c, layer.inputChannels, layer.kernel, layer.kernel]))
            g.append(try tensor("\(layer.name).norm.gamma", [StyleNetwork.styleCount, c]))
            b.append(try tensor("\(layer.name).norm.beta", [StyleNetwork.styleCount, c]))
        }
        convolutionWeights = w
        gamma = g
        beta = b
        let names = StyleNetwork.layers.map { "\($0.name).w" } + StyleNetwork.layers.map { "\($0.name).norm.gamma" }
            + StyleNetwork.layers.map { "\($0.name).norm.beta" }
        graph = StyleNetwork.graph(constants: ModelConstants(values: w + g + b, names: names))
    }

    /// The plan for an input of `height` x `width`: `graph` lowered by `GraphLowering`.
    /// Throws for a size the network cannot take (reflection padding larger than a map).
    public func plan(height: Int, width: Int) throws -> ExecutionPlan {
        try GraphLowering.lower(graph, input: .init(channels: 3, height: height, width: width))
    }

    /// γ and β of every layer for a style mix, laid out [layer][γ (maxChannels), β (maxChannels)]
    /// as the plan's normalisation steps expect.
    public func normParameters(for mix: StyleMix) -> [Float] {
        graph.instanceNormParameters(mix: mix.weights)
    }
}
