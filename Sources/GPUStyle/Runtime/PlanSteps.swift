/// The steps a lowered `NetworkGraph` is made of (`GraphLowering`), one per op, each with its
/// own constants (no global table). Every step reads and writes `Region`s: a tensor at an
/// offset of a plan buffer, dense [C][H][W] with channel planes `height * width` floats apart.
/// Intermediate tensors share `.pool`, placed by liveness (`BufferPlanner`); the graph's input
/// is `.input` and its output `.result`, both at offset 0.
///
/// Each op has one stem everywhere: `Conv2D` is `conv2d` in `CKernels/conv2d_graph.c`, in
/// `Shaders/conv2d_graph.comp`, in `CPU/` and `Vulkan/` and in `Conv2DTests`.
extension ExecutionPlan {
    public struct Region: Sendable, Equatable {
        public var buffer: Buffer
        /// Floats from the buffer's start (a multiple of `planeAlignment` for pool tensors, so
        /// a region can be bound on its own on Vulkan).
        public var offset: Int
        public var shape: NetworkGraph.Shape
        public init(buffer: Buffer, offset: Int, shape: NetworkGraph.Shape) {
            self.buffer = buffer
            self.offset = offset
            self.shape = shape
        }
        public var channels: Int { shape.channels }
        public var height: Int { shape.height }
        public var width: Int { shape.width }
        public var planeStride: Int { shape.height * shape.width }
        public var floatCount: Int { shape.elementCount }
        /// Channels `range` of this tensor (a concat writes its inputs into such slices).
        public func channels(_ range: Range<Int>) -> Region {
            Region(buffer: buffer, offset: offset + range.lowerBound * planeStride,
                   shape: .init(channels: range.count, height: height, width: width))
        }
    }

    /// Convolution with zero padding, bias and activation; groups (depthwise when groups ==
    /// channels). Weights [out][in / groups][kh][kw] and bias index `constants`. A fully
    /// connected layer is the convolution whose kernel covers its whole input.
    public struct Conv2D: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var weights: Int
        public var bias: Int?
        public var kernelHeight: Int
        public var kernelWidth: Int
        public var strideY: Int
        public var strideX: Int
        public var padding: NetworkGraph.Padding
        public var groups: Int
        public var activation: NetworkGraph.ActivationFunction
        /// The fake quantisation of the graph's `fake_quant` node that read this convolution's
        /// output alone, applied after the activation before the store (`GraphLowering`).
        public var quantize: NetworkGraph.FakeQuantize?
        public init(input: Region, output: Region, weights: Int, bias: Int?, kernelHeight: Int, kernelWidth: Int,
                    strideY: Int, strideX: Int, padding: NetworkGraph.Padding, groups: Int,
                    activation: NetworkGraph.ActivationFunction, quantize: NetworkGraph.FakeQuantize? = nil) {
            self.input = input
            self.output = output
            self.weights = weights
            self.bias = bias
            self.kernelHeight = kernelHeight
            self.kernelWidth = kernelWidth
            self.strideY = strideY
            self.strideX = strideX
            self.padding = padding
            self.groups = groups
            self.activation = activation
            self.quantize = quantize
        }
        public var isDepthwise: Bool { groups > 1 && groups == input.channels && groups == output.channels }
        public var isPointwise: Bool {
            groups == 1 && kernelHeight == 1 && kernelWidth == 1 && strideY == 1 && strideX == 1 && padding.isZero
        }
        public var multiplyAdds: Int { output.floatCount * (input.channels / groups) * kernelHeight * kernelWidth }
        /// Floats of the weights, [out][in / groups][kh][kw].
        public var weightCount: Int { output.channels * (input.channels / groups) * kernelHeight * kernelWidth }
    }

    /// MobileNetV2's inverted residual block, lowered from a chain of graph nodes ([1x1 expand]
    /// -> depthwise -> 1x1 project [-> add of the block's input]) whose intermediate tensors
    /// nothing else reads. The parts are ordinary steps with regions of their own (placed by
    /// liveness like any tensor): the Vulkan backend records them one after another, and the CPU
    /// backend runs the block in one pass over strips of rows, so the expanded and filtered
    /// tensors (6x the block's input and output) stay in cache and are never written
    /// (`CKernels/inverted_residual_body.inc`).
    public struct InvertedResidual: Sendable, Equatable {
        public var expand: Conv2D?
        public var depthwise: Conv2D
        public var project: Conv2D
        /// `project.output + input`, when the block ends with that add.
        public var residual: Add?
        public init(expand: Conv2D?, depthwise: Conv2D, project: Conv2D, residual: Add?) {
            precondition(expand.map { $0.isPointwise && $0.output == depthwise.input } ?? true,
                         "inverted_residual: the expansion is not a 1x1 convolution into the depthwise input")
            precondition(depthwise.isDepthwise && project.isPointwise && project.input == depthwise.output,
                         "inverted_residual: not depthwise then a 1x1 projection of its output")
            precondition(residual.map { $0.a == project.output && $0.activation == .identity } ?? true,
                         "inverted_residual: the residual add does not take the projection first")
            self.expand = expand
            self.depthwise = depthwise
            self.project = project
            self.residual = residual
        }
        public var input: Region { expand?.input ?? depthwise.input }
        /// Whether a part or the residual add ends with a fused fake quantisation.
        public var isQuantized: Bool {
            expand?.quantize != nil || depthwise.quantize != nil || project.quantize != nil || residual?.quantize != nil
        }
        public var output: Region { residual?.output ?? project.output }
        /// The steps the block stands for, in order.
        public var parts: [Step] {
            [expand.map(Step.conv2d), .conv2d(depthwise), .conv2d(project), residual.map(Step.add)].compactMap { $0 }
        }
    }

    /// Kernel 2, stride 2: out[o][2y+i][2x+j] = act(bias[o] + sum_c in[c][y][x] * w[c][o][i][j]).
    public struct TransposedConv2D: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var weights: Int
        public var bias: Int?
        /// Applied after the bias (PReLU's slopes one per output channel).
        public var activation: NetworkGraph.ActivationFunction
        public init(input: Region, output: Region, weights: Int, bias: Int?,
                    activation: NetworkGraph.ActivationFunction = .identity) {
            self.input = input
            self.output = output
            self.weights = weights
            self.bias = bias
            self.activation = activation
        }
    }

    /// `output = FQ(f(input))` elementwise (in place when the regions are equal), FQ the fake
    /// quantisation `quantize` when there is one.
    public struct ActivationStep: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var function: NetworkGraph.ActivationFunction
        public var quantize: NetworkGraph.FakeQuantize?
        public init(input: Region, output: Region, function: NetworkGraph.ActivationFunction,
                    quantize: NetworkGraph.FakeQuantize? = nil) {
            self.input = input
            self.output = output
            self.function = function
            self.quantize = quantize
        }
    }

    /// `output = FQ(f(a + b))`, FQ the fake quantisation `quantize` when there is one.
    public struct Add: Sendable, Equatable {
        public var a: Region
        public var b: Region
        public var output: Region
        public var activation: NetworkGraph.ActivationFunction
        public var quantize: NetworkGraph.FakeQuantize?
        public init(a: Region, b: Region, output: Region, activation: NetworkGraph.ActivationFunction,
                    quantize: NetworkGraph.FakeQuantize? = nil) {
            self.a = a
            self.b = b
            self.output = output
            self.activation = activation
            self.quantize = quantize
        }
    }

    /// `output[c] = input[c] * scale[c]` (scale is [C][1][1]).
    public struct ChannelMultiply: Sendable, Equatable {
        public var input: Region
        public var scale: Region
        public var output: Region
        public init(input: Region, scale: Region, output: Region) {
            self.input = input
            self.scale = scale
            self.output = output
        }
    }

    /// Mean of each channel plane, into [C][1][1].
    public struct GlobalAveragePool: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public init(input: Region, output: Region) {
            self.input = input
            self.output = output
        }
    }

    public struct MaxPool: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var kernel: Int
        public var stride: Int
        public var padding: NetworkGraph.Padding
        public init(input: Region, output: Region, kernel: Int, stride: Int, padding: NetworkGraph.Padding) {
            self.input = input
            self.output = output
            self.kernel = kernel
            self.stride = stride
            self.padding = padding
        }
    }

    /// Over the channels of each pixel.
    public struct Softmax: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public init(input: Region, output: Region) {
            self.input = input
            self.output = output
        }
    }

    /// `output = input` (same shape; a concat is one copy per input into a channel slice).
    public struct Copy: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public init(input: Region, output: Region) {
            self.input = input
            self.output = output
        }
    }

    public struct Resize: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var mode: NetworkGraph.ResizeMode
        public var scale: Int
        public init(input: Region, output: Region, mode: NetworkGraph.ResizeMode, scale: Int) {
            self.input = input
            self.output = output
            self.mode = mode
            self.scale = scale
        }
    }

    /// Zero or reflection padding into a larger dense map.
    public struct Pad2D: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var padding: NetworkGraph.Padding
        public var mode: NetworkGraph.PaddingMode
        public init(input: Region, output: Region, padding: NetworkGraph.Padding, mode: NetworkGraph.PaddingMode) {
            self.input = input
            self.output = output
            self.padding = padding
            self.mode = mode
        }
    }
}

extension ExecutionPlan {
    /// Fake quantisation, elementwise (in place when the regions are equal):
    /// `NetworkGraph.FakeQuantize`.
    public struct FakeQuant: Sendable, Equatable {
        public var input: Region
        public var output: Region
        public var quantize: NetworkGraph.FakeQuantize
        public init(input: Region, output: Region, quantize: NetworkGraph.FakeQuantize) {
            self.input = input
            self.output = output
            self.quantize = quantize
        }
    }
}

extension ExecutionPlan {
    /// `NetworkGraph.QuantizedInstanceNorm` over `input` with γ and β from regions of [C][1][1].
    public struct QuantizedInstanceNormStep: Sendable, Equatable {
        public var input: Region
        public var gamma: Region
        public var beta: Region
        public var output: Region
        public var norm: NetworkGraph.QuantizedInstanceNorm
        public init(input: Region, gamma: Region, beta: Region, output: Region, norm: NetworkGraph.QuantizedInstanceNorm) {
            self.input = input
            self.gamma = gamma
            self.beta = beta
            self.output = output
            self.norm = norm
        }
    }
}

extension ExecutionPlan.Step {
    /// The regions a graph step reads, then the one it writes (nil for the style network's steps);
    /// a fused step's intermediate regions are its parts'.
    public var graphRegions: (reads: [ExecutionPlan.Region], writes: ExecutionPlan.Region)? {
        switch self {
        case .pad, .convolution, .fusedConvolution, .instanceNormStatistics, .instanceNormApply, .instanceNormMoments: nil
        case .conv2d(let s): ([s.input], s.output)
        case .invertedResidual(let s): (s.residual.map { [s.input, $0.b] } ?? [s.input], s.output)
        case .transposedConv2d(let s): ([s.input], s.output)
        case .activation(let s): ([s.input], s.output)
        case .add(let s): ([s.a, s.b], s.output)
        case .channelMultiply(let s): ([s.input, s.scale], s.output)
        case .globalAveragePool(let s): ([s.input], s.output)
        case .maxPool(let s): ([s.input], s.output)
        case .softmax(let s): ([s.input], s.output)
        case .copy(let s): ([s.input], s.output)
        case .resize(let s): ([s.input], s.output)
        case .pad2d(let s): ([s.input], s.output)
        case .fakeQuant(let s): ([s.input], s.output)
        case .quantizedInstanceNorm(let s): ([s.input, s.gamma, s.beta], s.output)
        }
    }

    /// The steps this one stands for: a fused step's parts, else the step itself.
    public var parts: [ExecutionPlan.Step] {
        switch self {
        case .invertedResidual(let block): block.parts
        case .fusedConvolution(let fused): fused.parts
        default: [self]
        }
    }

    /// The op's stem (C file, shader, test), e.g. "conv2d", for reports.
    public var opName: String {
        switch self {
        case .pad: "pad"
        case .convolution: "convolution"
        case .fusedConvolution: "convolution"
        case .instanceNormStatistics: "instance_norm_statistics"
        case .instanceNormApply: "instance_norm_apply"
        case .instanceNormMoments: "instance_norm_moments"
        case .conv2d(let s): s.isDepthwise ? "conv2d depthwise" : "conv2d"
        case .invertedResidual: "inverted_residual"
        case .transposedConv2d: "transposed_conv2d"
        case .activation: "activation"
        case .add: "add"
        case .channelMultiply: "channel_multiply"
        case .globalAveragePool: "global_average_pool"
        case .maxPool: "max_pool"
        case .softmax: "softmax"
        case .copy: "copy"
        case .resize: "resize"
        case .pad2d: "pad2d"
        case .fakeQuant: "fake_quant"
        case .quantizedInstanceNorm: "quantized_instance_norm"
        }
    }
}
