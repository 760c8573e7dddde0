extension StyleNetwork {
    /// The kinds of constant each layer has, in the order `graph` lays them out.
    public enum Constant: Int, CaseIterable, Sendable {
        case weights, gamma, beta

        /// Its name in the weight file (`contract.0.w`, `contract.0.norm.gamma`, ...).
        public func name(layer: Int) -> String {
            let suffix = switch self {
            case .weights: "w"
            case .gamma: "norm.gamma"
            case .beta: "norm.beta"
            }
            return "\(layers[layer].name).\(suffix)"
        }

        /// Its shape: weights [Cout][Cin][K][K], γ and β [styles][Cout].
        public func shape(layer: Int) -> [Int] {
            let spec = layers[layer]
            return self == .weights ? [spec.outputChannels, spec.inputChannels, spec.kernel, spec.kernel]
                                    : [styleCount, spec.outputChannels]
        }

        /// Its index among `graph`'s constants.
        public func index(layer: Int) -> Int { rawValue * layers.count + layer }
    }

    /// The network as a `NetworkGraph`, the one description both the whole-image plan
    /// (`StyleModel.plan`) comes from and model files can carry. Constants are laid out
    /// [conv weights of every layer, then γ of every layer, then β of every layer], each in
    /// `layers` order, so a convolution's weights constant is its layer index (the index of
    /// its packed weights in the backends, `StyleModel.convolutions`) and the i-th instance
    /// norm is layer i (row i of `StyleModel.normParameters`).
    ///
    /// Each layer is a normalised convolution block: [resize nearest x2] → reflect-padded
    /// convolution → conditional instance norm with the layer's activation [→ add the block's
    /// input].
    public static func graph(constants: ModelConstants) -> NetworkGraph {
        precondition(constants.count == Constant.allCases.count * layers.count, "weights, gamma and beta per layer")
        var nodes: [NetworkGraph.Node] = []
        var tensorCount = 1
        func tensor() -> Int {
            tensorCount += 1
            return tensorCount - 1
        }
        var current = 0
        var blockInput: Int?
        for (index, layer) in layers.enumerated() {
            if layer.name.hasPrefix("res.") && !layer.closesResidualBlock { blockInput = current }
            if layer.upsample {
                let upsampled = tensor()
                nodes.append(.init(name: "\(layer.name).upsample", operation: .resize(.nearest, scale: 2),
                                   inputs: [current], output: upsampled))
                current = upsampled
            }
            let convolved = tensor()
            nodes.append(.init(name: layer.name, operation: .convolution(.init(
                weights: Constant.weights.index(layer: index), bias: nil, outputChannels: layer.outputChannels, kernelHeight: layer.kernel,
                kernelWidth: layer.kernel, strideY: layer.stride, strideX: layer.stride,
                padding: .init(layer.padding), paddingMode: .reflect)), inputs: [current], output: convolved))
            let normalised = tensor()
            nodes.append(.init(name: "\(layer.name).norm", operation: .instanceNorm(.init(
                gamma: Constant.gamma.index(layer: index), beta: Constant.beta.index(layer: index), styles: styleCount,
                activation: .init(layer.activation))), inputs: [convolved], output: normalised))
            current = normalised
            if layer.closesResidualBlock, let residual = blockInput {
                let sum = tensor()
                nodes.append(.init(name: "\(layer.name).add", operation: .add(.identity), inputs: [current, residual], output: sum))
                current = sum
                blockInput = nil
            }
        }
        return NetworkGraph(input: 0, output: current, tensorCount: tensorCount, nodes: nodes, constants: constants)
    }
}
