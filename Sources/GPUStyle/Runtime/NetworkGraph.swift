/// A network as a graph of operations over numbered tensors: the one description every model
/// is given in (built in code, read from ONNX by `ONNXImporter`, or from a `.gpsm` model file),
/// checked once (`shapes()`), and lowered by `GraphLowering` into the `ExecutionPlan` both
/// backends run.
///
/// Tensors are feature maps of one image, [channels][height][width] in float32; a vector (the
/// output of a fully connected layer or a global pool) is [n][1][1]. Weights live in
/// `constants` and are referenced by index.
public struct NetworkGraph: Sendable {
    public struct Shape: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
        public var channels: Int
        public var height: Int
        public var width: Int
        public init(channels: Int, height: Int, width: Int) {
            self.channels = channels
            self.height = height
            self.width = width
        }
        public var elementCount: Int { channels * height * width }
        public var description: String { "\(channels)x\(height)x\(width)" }
    }

    /// Rows and columns added around a map, on each side.
    public struct Padding: Sendable, Equatable, Hashable, Codable {
        public var top, left, bottom, right: Int
        public init(top: Int, left: Int, bottom: Int, right: Int) {
            self.top = top
            self.left = left
            self.bottom = bottom
            self.right = right
        }
        public init(_ all: Int) { self.init(top: all, left: all, bottom: all, right: all) }
        public static let zero = Padding(0)
        public var isZero: Bool { self == .zero }
    }

    public enum PaddingMode: UInt32, Sendable, Codable { case zero = 0, reflect = 1 }

    /// An activation with its parameters.
    public struct ActivationFunction: Sendable, Equatable, Codable {
        public var kind: Activation
        public var alpha: Float
        public var beta: Float
        /// PReLU's per-channel slopes (a constant of `channels` values).
        public var slopes: Int?
        public init(_ kind: Activation, alpha: Float = 0, beta: Float = 0, slopes: Int? = nil) {
            self.kind = kind
            self.alpha = alpha
            self.beta = beta
            self.slopes = slopes
        }
        public static let identity = ActivationFunction(.identity)
        public static let relu = ActivationFunction(.relu)
        public static let relu6 = ActivationFunction(.relu6)
    }

    /// 2-D convolution: `weights` is [out][in / groups][kernelHeight][kernelWidth], `bias` [out].
    /// Depthwise is `groups == in == out`. Batch norm is folded into weights and bias at import.
    public struct Convolution: Sendable, Equatable, Codable {
        public var weights: Int
        public var bias: Int?
        public var outputChannels: Int
        public var kernelHeight: Int
        public var kernelWidth: Int
        public var strideY: Int
        public var strideX: Int
        public var padding: Padding
        public var paddingMode: PaddingMode
        public var groups: Int
        public var activation: ActivationFunction
        public init(weights: Int, bias: Int?, outputChannels: Int, kernelHeight: Int, kernelWidth: Int,
                    strideY: Int = 1, strideX: Int = 1, padding: Padding = .zero, paddingMode: PaddingMode = .zero,
                    groups: Int = 1, activation: ActivationFunction = .identity) {
            self.weights = weights
            self.bias = bias
            self.outputChannels = outputChannels
            self.kernelHeight = kernelHeight
            self.kernelWidth = kernelWidth
            self.strideY = strideY
            self.strideX = strideX
            self.padding = padding
            self.paddingMode = paddingMode
            self.groups = groups
            self.activation = activation
        }
    }

    /// Transposed convolution with kernel 2 and stride 2 (each input pixel paints a 2x2 block):
    /// `weights` is [in][out][2][2] as ONNX and torch store it, `bias` [out], and the activation
    /// fused after it (a batch norm or per-channel add after it is folded into weights and bias at
    /// import, like a convolution's).
    public struct TransposedConvolution: Sendable, Equatable, Codable {
        public var weights: Int
        public var bias: Int?
        public var outputChannels: Int
        public var activation: ActivationFunction
        public init(weights: Int, bias: Int?, outputChannels: Int, activation: ActivationFunction = .identity) {
            self.weights = weights
            self.bias = bias
            self.outputChannels = outputChannels
            self.activation = activation
        }

        private enum CodingKeys: String, CodingKey { case weights, bias, outputChannels, activation }

        /// Model files written before the fused activation have none: the identity.
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            weights = try c.decode(Int.self, forKey: .weights)
            bias = try c.decodeIfPresent(Int.self, forKey: .bias)
            outputChannels = try c.decode(Int.self, forKey: .outputChannels)
            activation = try c.decodeIfPresent(ActivationFunction.self, forKey: .activation) ?? .identity
        }
    }

    public struct Pooling: Sendable, Equatable, Codable {
        public var kernel: Int
        public var stride: Int
        /// Padded cells never win (max over the cells inside the map).
        public var padding: Padding
        public init(kernel: Int, stride: Int, padding: Padding = .zero) {
            self.kernel = kernel
            self.stride = stride
            self.padding = padding
        }
    }

    /// Conditional instance normalisation (Dumoulin et al., "A Learned Representation for
    /// Artistic Style", 2017): per channel over the map, y = activation(γ (x − mean) /
    /// sqrt(var + ε) + β) with the biased variance and ε = `StyleNetwork.instanceNormEpsilon`.
    /// γ and β are chosen at run time: the caller's mix of the `styles` rows of `gamma` and
    /// `beta` (constants of [styles][C]; `NetworkGraph.instanceNormParameters(mix:)`).
    public struct InstanceNorm: Sendable, Equatable, Codable {
        public var gamma: Int
        public var beta: Int
        public var styles: Int
        public var activation: ActivationFunction
        public init(gamma: Int, beta: Int, styles: Int, activation: ActivationFunction = .identity) {
            self.gamma = gamma
            self.beta = beta
            self.styles = styles
            self.activation = activation
        }
        /// The kernels' per-layer parameter tables hold this many channels.
        public static var maxChannels: Int { StyleNetwork.maxChannels }
        /// The activations the normalisation kernels apply (`instance_norm_apply.comp`, `gs_instance_norm_apply`).
        public static let activations: Set<Activation> = [.identity, .relu, .sigmoid]
    }

    /// Fake quantisation: an int8/uint8 QuantizeLinear and the DequantizeLinear that undoes it
    /// (one scale and zero point for the tensor), run in float32: y = (clamp(round_half_even(x /
    /// scale) + zeroPoint, low, high) - zeroPoint) * scale, as onnxruntime computes the pair.
    public struct FakeQuantize: Sendable, Equatable, Codable {
        public var scale: Float
        public var zeroPoint: Int
        /// The integer range: -128...127 (int8) or 0...255 (uint8).
        public var low: Int
        public var high: Int
        public init(scale: Float, zeroPoint: Int, low: Int, high: Int) {
            self.scale = scale
            self.zeroPoint = zeroPoint
            self.low = low
            self.high = high
        }
        public static func int8(scale: Float, zeroPoint: Int) -> FakeQuantize {
            .init(scale: scale, zeroPoint: zeroPoint, low: -128, high: 127)
        }
        public static func uint8(scale: Float, zeroPoint: Int) -> FakeQuantize {
            .init(scale: scale, zeroPoint: zeroPoint, low: 0, high: 255)
        }
    }

    /// Conditional instance normalisation as int8 QDQ models write it out (Magenta's
    /// arbitrary-style transform, `CKernels/quantized_instance_norm.c`): with FQk the k-th of
    /// `quantizers`, m = FQ0(mean(x)); v = FQ2(mean(FQ1((x - m)²))); e = FQ3(v + ε);
    /// r = FQ4(1 / √e); g = FQ5(r γ); b = FQ7(β - FQ6(m g)); y = FQ9([relu](FQ8(x g) + b)).
    /// γ and β are runtime [C][1][1] tensors (computed from a style vector).
    public struct QuantizedInstanceNorm: Sendable, Equatable, Codable {
        public var quantizers: [FakeQuantize]
        public var epsilon: Float
        public var relu: Bool
        public init(quantizers: [FakeQuantize], epsilon: Float, relu: Bool) {
            self.quantizers = quantizers
            self.epsilon = epsilon
            self.relu = relu
        }
        /// The 40 floats the kernels read: (scale, zero point, low, high) of each quantizer.
        public var table: [Float] {
            quantizers.flatMap { [$0.scale, Float($0.zeroPoint), Float($0.low), Float($0.high)] }
        }
    }

    public enum ResizeMode: UInt32, Sendable, Codable {
        /// Source pixel floor(y / scale) (ONNX nearest, asymmetric, floor).
        case nearest = 0
        /// Half-pixel centres, edge clamped (ONNX linear with half_pixel; torch align_corners=false).
        case bilinear = 1
    }

    public enum Operation: Sendable, Equatable, Codable {
        case convolution(Convolution)
        case transposedConvolution(TransposedConvolution)
        /// inputs [x]
        case activation(ActivationFunction)
        /// inputs [a, b] of one shape; the activation applies to the sum.
        case add(ActivationFunction)
        /// inputs [x, scale]: x[c][y][x] * scale[c] (squeeze-and-excite); scale is [C][1][1].
        case channelMultiply
        case globalAveragePool
        case maxPool(Pooling)
        /// `weights` [out][in] with in = the input's element count, `bias` [out]; output [out][1][1].
        case fullyConnected(weights: Int, bias: Int?, outputs: Int)
        /// Over the channels of each pixel.
        case softmax
        /// Along channels.
        case concat
        /// Integer scale on both axes.
        case resize(ResizeMode, scale: Int)
        /// Explicit padding as its own step (reflect padding before a convolution is lowered so).
        case pad(Padding, PaddingMode)
        /// inputs [x]
        case instanceNorm(InstanceNorm)
        /// inputs [x]
        case fakeQuantize(FakeQuantize)
        /// inputs [x, gamma, beta], gamma and beta [C][1][1]
        case quantizedInstanceNorm(QuantizedInstanceNorm)

        public var name: String {
            switch self {
            case .convolution(let c): c.groups == 1 ? "conv2d" : "conv2d (groups \(c.groups))"
            case .transposedConvolution: "conv_transpose"
            case .activation(let a): "\(a.kind)"
            case .add: "add"
            case .channelMultiply: "channel_multiply"
            case .globalAveragePool: "global_average_pool"
            case .maxPool: "max_pool"
            case .fullyConnected: "fully_connected"
            case .softmax: "softmax"
            case .concat: "concat"
            case .resize(let mode, _): "resize (\(mode))"
            case .pad: "pad"
            case .instanceNorm: "instance_norm"
            case .fakeQuantize: "fake_quant"
            case .quantizedInstanceNorm: "quantized_instance_norm"
            }
        }
    }

    public struct Node: Sendable, Equatable, Codable {
        public var name: String
        public var operation: Operation
        public var inputs: [Int]
        public var output: Int
        public init(name: String, operation: Operation, inputs: [Int], output: Int) {
            self.name = name
            self.operation = operation
            self.inputs = inputs
            self.output = output
        }
    }

    public var input: Int
    public var output: Int
    public var tensorCount: Int
    /// A second input of fixed shape besides the image (Magenta's arbitrary-style transform reads
    /// its style vector so), given to a plan as the `.parameters` buffer.
    public var auxiliaryInput: AuxiliaryInput?

    public struct AuxiliaryInput: Sendable, Equatable, Codable {
        public var tensor: Int
        public var shape: Shape
        public init(tensor: Int, shape: Shape) {
            self.tensor = tensor
            self.shape = shape
        }
    }
    /// In an order where every tensor is made before it is read.
    public var nodes: [Node]
    public var constants: ModelConstants

    public init(input: Int, output: Int, tensorCount: Int, nodes: [Node], constants: ModelConstants) {
        self.input = input
        self.output = output
        self.tensorCount = tensorCount
        self.nodes = nodes
        self.constants = constants
    }
}

/// A graph that cannot run: which node and why.
public struct GraphError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension NetworkGraph {
    /// The shape of every tensor for an input of `input`, checking each node's inputs, weights
    /// and attributes (every failure names the node).
    public func shapes(input inputShape: Shape) throws -> [Shape?] {
        var shapes = [Shape?](repeating: nil, count: tensorCount)
        guard input >= 0, input < tensorCount, output >= 0, output < tensorCount else {
            throw GraphError("the graph's input or output tensor is out of range")
        }
        shapes[input] = inputShape
        if let auxiliary = auxiliaryInput {
            guard auxiliary.tensor >= 0, auxiliary.tensor < tensorCount, auxiliary.tensor != input,
                  auxiliary.shape.elementCount > 0 else {
                throw GraphError("the graph's auxiliary input tensor is out of range")
            }
            shapes[auxiliary.tensor] = auxiliary.shape
        }
        for node in nodes {
            func fail(_ why: String) -> GraphError { GraphError("node \(node.name) (\(node.operation.name)): \(why)") }
            let inputs = try node.inputs.map { index -> Shape in
                guard index >= 0, index < tensorCount, let shape = shapes[index] else {
                    throw fail("reads tensor \(index) before it is made")
                }
                return shape
            }
            guard node.output >= 0, node.output < tensorCount, shapes[node.output] == nil else {
                throw fail("writes tensor \(node.output), which is out of range or made twice")
            }
            func arity(_ n: Int) throws {
                if inputs.count != n { throw fail("takes \(n) input(s), given \(inputs.count)") }
            }
            func constant(_ index: Int?, _ what: String, count: Int) throws {
                guard let index else { return }
                guard index >= 0, index < constants.count else { throw fail("\(what) is constant \(index), which does not exist") }
                guard constants[index].count == count else {
                    throw fail("\(what) has \(constants[index].count) values, expected \(count)")
                }
            }
            func activation(_ a: ActivationFunction, channels: Int) throws {
                if a.kind == .prelu {
                    guard let slopes = a.slopes else { throw fail("PReLU without slopes") }
                    try constant(slopes, "PReLU slope", count: channels)
                }
            }
            let out: Shape
            switch node.operation {
            case .convolution(let c):
                try arity(1)
                let x = inputs[0]
                guard c.groups >= 1, x.channels % c.groups == 0, c.outputChannels % c.groups == 0 else {
                    throw fail("\(x.channels) input and \(c.outputChannels) output channels do not split into \(c.groups) groups")
                }
                guard c.kernelHeight >= 1, c.kernelWidth >= 1, c.strideY >= 1, c.strideX >= 1,
                      min(c.padding.top, c.padding.left, c.padding.bottom, c.padding.right) >= 0 else {
                    throw fail("kernel, stride and padding must be positive")
                }
                if c.paddingMode == .reflect {
                    guard max(c.padding.top, c.padding.bottom) < x.height, max(c.padding.left, c.padding.right) < x.width else {
                        throw fail("reflection padding \(c.padding) is not smaller than the \(x) input")
                    }
                }
                let h = x.height + c.padding.top + c.padding.bottom - c.kernelHeight
                let w = x.width + c.padding.left + c.padding.right - c.kernelWidth
                guard h >= 0, w >= 0 else { throw fail("the \(c.kernelHeight)x\(c.kernelWidth) kernel is larger than the padded \(x) input") }
                try constant(c.weights, "weights", count: c.outputChannels * x.channels / c.groups * c.kernelHeight * c.kernelWidth)
                try constant(c.bias, "bias", count: c.outputChannels)
                try activation(c.activation, channels: c.outputChannels)
                out = Shape(channels: c.outputChannels, height: h / c.strideY + 1, width: w / c.strideX + 1)
            case .transposedConvolution(let t):
                try arity(1)
                let x = inputs[0]
                try constant(t.weights, "weights", count: x.channels * t.outputChannels * 4)
                try constant(t.bias, "bias", count: t.outputChannels)
                try activation(t.activation, channels: t.outputChannels)
                out = Shape(channels: t.outputChannels, height: 2 * x.height, width: 2 * x.width)
            case .activation(let a):
                try arity(1)
                try activation(a, channels: inputs[0].channels)
                out = inputs[0]
            case .add(let a):
                try arity(2)
                guard inputs[0] == inputs[1] else { throw fail("adds \(inputs[0]) to \(inputs[1])") }
                try activation(a, channels: inputs[0].channels)
                out = inputs[0]
            case .channelMultiply:
                try arity(2)
                guard inputs[1] == Shape(channels: inputs[0].channels, height: 1, width: 1) else {
                    throw fail("scales \(inputs[0]) by \(inputs[1]); the scale must be \(inputs[0].channels)x1x1")
                }
                out = inputs[0]
            case .globalAveragePool:
                try arity(1)
                out = Shape(channels: inputs[0].channels, height: 1, width: 1)
            case .maxPool(let p):
                try arity(1)
                let x = inputs[0]
                guard p.kernel >= 1, p.stride >= 1, max(p.padding.top, p.padding.left, p.padding.bottom, p.padding.right) < p.kernel else {
                    throw fail("kernel \(p.kernel), stride \(p.stride), padding must be smaller than the kernel")
                }
                let h = x.height + p.padding.top + p.padding.bottom - p.kernel
                let w = x.width + p.padding.left + p.padding.right - p.kernel
                guard h >= 0, w >= 0 else { throw fail("the \(p.kernel)x\(p.kernel) window is larger than the \(x) input") }
                out = Shape(channels: x.channels, height: h / p.stride + 1, width: w / p.stride + 1)
            case .fullyConnected(let weights, let bias, let outputs):
                try arity(1)
                try constant(weights, "weights", count: outputs * inputs[0].elementCount)
                try constant(bias, "bias", count: outputs)
                out = Shape(channels: outputs, height: 1, width: 1)
            case .softmax:
                try arity(1)
                out = inputs[0]
            case .concat:
                guard let first = inputs.first else { throw fail("concatenates nothing") }
                guard inputs.allSatisfy({ $0.height == first.height && $0.width == first.width }) else {
                    throw fail("concatenates maps of different sizes: \(inputs.map(\.description).joined(separator: ", "))")
                }
                out = Shape(channels: inputs.reduce(0) { $0 + $1.channels }, height: first.height, width: first.width)
            case .resize(_, let scale):
                try arity(1)
                guard scale >= 1 else { throw fail("scale \(scale)") }
                out = Shape(channels: inputs[0].channels, height: scale * inputs[0].height, width: scale * inputs[0].width)
            case .pad(let p, let mode):
                try arity(1)
                let x = inputs[0]
                guard min(p.top, p.left, p.bottom, p.right) >= 0 else { throw fail("negative padding") }
                if mode == .reflect, max(p.top, p.bottom) >= x.height || max(p.left, p.right) >= x.width {
                    throw fail("reflection padding is not smaller than the \(x) input")
                }
                out = Shape(channels: x.channels, height: x.height + p.top + p.bottom, width: x.width + p.left + p.right)
            case .instanceNorm(let n):
                try arity(1)
                let channels = inputs[0].channels
                guard channels <= InstanceNorm.maxChannels else {
                    throw fail("normalises \(channels) channels; the kernels' parameter tables hold \(InstanceNorm.maxChannels)")
                }
                guard n.styles >= 1 else { throw fail("\(n.styles) styles") }
                guard InstanceNorm.activations.contains(n.activation.kind) else {
                    throw fail("applies \(n.activation.kind); instance norm applies identity, relu or sigmoid")
                }
                try constant(n.gamma, "gamma", count: n.styles * channels)
                try constant(n.beta, "beta", count: n.styles * channels)
                out = inputs[0]
            case .fakeQuantize(let q):
                try arity(1)
                guard q.scale > 0, q.scale.isFinite, q.low < q.high, (q.low...q.high).contains(q.zeroPoint) else {
                    throw fail("scale \(q.scale), zero point \(q.zeroPoint), range \(q.low)...\(q.high)")
                }
                out = inputs[0]
            case .quantizedInstanceNorm(let n):
                try arity(3)
                let vector = Shape(channels: inputs[0].channels, height: 1, width: 1)
                guard inputs[1] == vector, inputs[2] == vector else {
                    throw fail("normalises \(inputs[0]) with γ \(inputs[1]) and β \(inputs[2]); both must be \(vector)")
                }
                guard n.quantizers.count == 10,
                      n.quantizers.allSatisfy({ $0.scale > 0 && $0.scale.isFinite && $0.low < $0.high }) else {
                    throw fail("needs 10 fake quantisations with positive scales")
                }
                out = inputs[0]
            }
            guard out.elementCount > 0 else { throw fail("makes an empty \(out) tensor") }
            shapes[node.output] = out
        }
        guard shapes[output] != nil else { throw GraphError("no node makes the graph's output tensor \(output)") }
        return shapes
    }
}

/// Written by name in model files ("relu6"), so a header reads as what it means.
extension Activation: Codable {
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let kind = Activation.allCases.first(where: { "\($0)" == name }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown activation \(name)"))
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(self)")
    }
}
