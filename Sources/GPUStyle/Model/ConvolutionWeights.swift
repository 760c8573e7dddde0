/// One convolution's weights in ONNX layout [Cout][Cin][K][K]; backends repack them as they like.
public struct ConvolutionWeights: Sendable {
    public let outputChannels: Int
    public let inputChannels: Int
    public let kernel: Int
    public let values: [Float]

    public init(outputChannels: Int, inputChannels: Int, kernel: Int, values: [Float]) {
        precondition(values.count == outputChannels * inputChannels * kernel * kernel)
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.kernel = kernel
        self.values = values
    }
}

extension StyleModel {
    /// The network's convolutions, indexed like `StyleNetwork.layers`.
    public var convolutions: [ConvolutionWeights] {
        StyleNetwork.layers.enumerated().map { index, layer in
            ConvolutionWeights(outputChannels: layer.outputChannels, inputChannels: layer.inputChannels,
                               kernel: layer.kernel, values: constant(.weights, layer: index))
        }
    }
}
