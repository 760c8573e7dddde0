import Foundation

/// The multi-style network's weights, checked against `StyleNetwork.layers`, held once: as the
/// constants of its graph.
public final class StyleModel: Sendable {
    /// The network with these weights (`StyleNetwork.graph`).
    public let graph: NetworkGraph

    /// Layer `layer`'s constant of `kind` (weights in ONNX layout [Cout][Cin][K][K]; γ and β
    /// [26][Cout]).
    public func constant(_ kind: StyleNetwork.Constant, layer: Int) -> [Float] {
        graph.constants[kind.index(layer: layer)]
    }

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
        var values: [[Float]] = [], names: [String] = []
        for kind in StyleNetwork.Constant.allCases {
            for layer in StyleNetwork.layers.indices {
                names.append(kind.name(layer: layer))
                values.append(try tensor(names.last!, kind.shape(layer: layer)))
            }
        }
        graph = StyleNetwork.graph(constants: ModelConstants(values: values, names: names))
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
