import Foundation

/// The multi-style network's weights, checked against `StyleNetwork.layers`.
public final class StyleModel: Sendable {
    /// Per layer, ONNX layout [Cout][Cin][K][K].
    public let convolutionWeights: [[Float]]
    /// Per layer, [26][Cout] each.
    public let gamma: [[Float]]
    public let beta: [[Float]]

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
    }

    /// γ and β of every layer for a style mix, laid out [layer][γ (maxChannels), β (maxChannels)]
    /// as the plan's normalisation steps expect.
    public func normParameters(for mix: StyleMix) -> [Float] {
        let stride = 2 * StyleNetwork.maxChannels
        var table = [Float](repeating: 0, count: StyleNetwork.layers.count * stride)
        for (index, layer) in StyleNetwork.layers.enumerated() {
            for c in 0..<layer.outputChannels {
                var g: Float = 0, b: Float = 0
                for (style, weight) in mix.weights.enumerated() where weight != 0 {
                    g += weight * gamma[index][style * layer.outputChannels + c]
                    b += weight * beta[index][style * layer.outputChannels + c]
                }
                table[index * stride + c] = g
                table[index * stride + StyleNetwork.maxChannels + c] = b
            }
        }
        return table
    }
}
