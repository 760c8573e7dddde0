/// The network unrolled for one input size: a list of steps over a few reusable buffers.
///
/// Both backends execute the same plan step by step (the CPU backend immediately, the Vulkan
/// backend by recording one dispatch group per step into a single command buffer), so they share
/// buffer reuse, shapes and numerics by construction.
///
/// Tensor layout conventions (all float32, channel planes one after another):
/// - A *dense* tensor [C][H][W] stores channel `c` at `c * planeStride`, rows `W` floats apart.
///   `planeStride >= H * W` is rounded up to `planeAlignment` floats so a channel range of a
///   tensor can be bound on its own (Vulkan storage-buffer offsets must be aligned).
/// - A *padded* tensor is a reflection-padded copy made for a convolution: channel `c` at
///   `c * planeStride`, row `r` at `r * rowStride`. In `split` layout (stride-2 convolutions) each
///   row holds its even columns first and its odd columns from `oddColumnsStart`, so a stride-2
///   convolution reads consecutive memory for consecutive outputs.
public struct ExecutionPlan: Sendable {
    public enum Buffer: Int, Sendable, CaseIterable {
        /// The network input, dense [3][H][W] in [0, 1].
        case input
        /// Padded copy of the current layer's input.
        case padded
        /// Activations; residual blocks need three live tensors at once.
        case a, b, c
        /// Per-channel moments of one map (`InstanceNormMoments`): tiled execution reads them back.
        case moments
        /// A lowered graph's intermediate tensors, placed by liveness (`GraphLowering`).
        case pool
        /// A lowered graph's output tensor.
        case result
        /// A lowered graph's auxiliary input (`NetworkGraph.auxiliaryInput`: a style vector).
        case parameters
    }

    /// Floats between two channel planes are a multiple of this (64 floats = 256 bytes, the
    /// largest `minStorageBufferOffsetAlignment` Vulkan allows).
    public static let planeAlignment = 64
    /// Extra floats at the end of each padded row: the CPU kernels read whole tiles past the
    /// last valid column and drop the results (a 64-pixel AVX-512 tile from the last output
    /// column, plus the kernel's reach: up to 67 floats past a split row's end).
    public static let rowSlack = 72

    public struct DenseShape: Sendable, Equatable {
        public let channels: Int
        public let height: Int
        public let width: Int
        public init(channels: Int, height: Int, width: Int) {
            self.channels = channels
            self.height = height
            self.width = width
        }
        /// A graph tensor's shape, laid out with aligned planes.
        public init(_ shape: NetworkGraph.Shape) {
            self.init(channels: shape.channels, height: shape.height, width: shape.width)
        }
        public var planeStride: Int { roundUp(height * width, ExecutionPlan.planeAlignment) }
        public var floatCount: Int { channels * planeStride }
    }

    /// Reflection padding (with optional 2x nearest upsampling first) of a dense tensor.
    ///
    /// The source buffer may hold only a tile of a larger map (tiled execution): `window` says
    /// where. Padded row `r` reads the map's logical row `window.top + r` (in upsampled
    /// coordinates; rows outside the map are reflected into it, as for a whole map), which is
    /// row `reflect(window.top + r) / scale - window.sourceTop` of the source buffer. A whole
    /// map is the window with `sourceTop = 0` and `top = -padding`.
    public struct Pad: Sendable {
        public let source: Buffer
        public let destination: Buffer
        public let sourceShape: DenseShape
        public let upsample: Bool
        public let padding: Int
        public let split: Bool
        public let window: Window

        /// Where a padded tile sits: one `Window.Axis` per direction.
        public struct Window: Sendable, Equatable {
            public struct Axis: Sendable, Equatable {
                /// First row (column) of the source buffer within the whole source map.
                public var sourceStart: Int
                /// Rows (columns) of the whole source map, before upsampling.
                public var fullSize: Int
                /// Logical coordinate of padded row (column) 0, in the upsampled whole map
                /// (negative at the map's start: those rows are reflected).
                public var start: Int
                /// Padded rows (columns).
                public var size: Int
                public init(sourceStart: Int, fullSize: Int, start: Int, size: Int) {
                    self.sourceStart = sourceStart
                    self.fullSize = fullSize
                    self.start = start
                    self.size = size
                }
            }
            public var rows: Axis
            public var columns: Axis
            public init(rows: Axis, columns: Axis) {
                self.rows = rows
                self.columns = columns
            }
        }

        /// A whole map: reflection padding by `padding` on every side.
        public init(source: Buffer, destination: Buffer, sourceShape: DenseShape, upsample: Bool, padding: Int, split: Bool) {
            precondition(padding < sourceShape.height * (upsample ? 2 : 1) && padding < sourceShape.width * (upsample ? 2 : 1),
                         "reflection padding must be smaller than the padded side")
            let scale = upsample ? 2 : 1
            self.init(source: source, destination: destination, sourceShape: sourceShape, upsample: upsample, padding: padding,
                      split: split, window: Window(
                        rows: .init(sourceStart: 0, fullSize: sourceShape.height, start: -padding,
                                    size: scale * sourceShape.height + 2 * padding),
                        columns: .init(sourceStart: 0, fullSize: sourceShape.width, start: -padding,
                                       size: scale * sourceShape.width + 2 * padding)))
        }

        /// A tile of a map (see `Window`); `padding` is the layer's (kept for reports).
        public init(source: Buffer, destination: Buffer, sourceShape: DenseShape, upsample: Bool, padding: Int, split: Bool,
                    window: Window) {
            self.source = source
            self.destination = destination
            self.sourceShape = sourceShape
            self.upsample = upsample
            self.padding = padding
            self.split = split
            self.window = window
        }

        public var paddedHeight: Int { window.rows.size }
        public var paddedWidth: Int { window.columns.size }
        public var oddColumnsStart: Int { split ? (paddedWidth + 1) / 2 : 0 }
        public var rowStride: Int { roundUp(paddedWidth + ExecutionPlan.rowSlack, 8) }
        public var planeStride: Int { roundUp(paddedHeight * rowStride, ExecutionPlan.planeAlignment) }
        public var floatCount: Int { sourceShape.channels * planeStride }

        /// Offset within a padded row of the column that kernel tap `kx` reads for output x = 0
        /// (output x reads offset + x: strides are folded into the split layout).
        public func columnOffset(tap kx: Int) -> Int {
            split ? (kx % 2 == 0 ? kx / 2 : oddColumnsStart + kx / 2) : kx
        }

        /// Row (column) of the source buffer that padded row (column) `index` copies.
        public func sourceIndex(_ index: Int, along axis: Window.Axis) -> Int {
            let scale = upsample ? 2 : 1
            return ExecutionPlan.reflect(axis.start + index, scale * axis.fullSize) / scale - axis.sourceStart
        }
    }

    /// Unpadded convolution, no bias, of a padded tensor; output dense. `layer` indexes the
    /// backend's `ConvolutionWeights`; stride 2 requires the input's `split` layout.
    public struct Convolution: Sendable {
        public let layer: Int
        public let input: Pad
        public let destination: Buffer
        public let kernel: Int
        public let stride: Int
        public let outputShape: DenseShape
        public init(layer: Int, input: Pad, destination: Buffer, outputChannels: Int, kernel: Int, stride: Int) {
            precondition(stride == 1 || (stride == 2 && input.split), "stride-2 convolutions read split-layout input")
            self.layer = layer
            self.input = input
            self.destination = destination
            self.kernel = kernel
            self.stride = stride
            outputShape = DenseShape(channels: outputChannels,
                                     height: (input.paddedHeight - kernel) / stride + 1,
                                     width: (input.paddedWidth - kernel) / stride + 1)
        }
        public var inputChannels: Int { input.sourceShape.channels }
    }

    /// Per-channel mean and biased variance over H x W (fp32), folded with the layer's mixed γ
    /// and β into `scale = γ / sqrt(var + 1e-5)` and `shift = β - mean * scale`.
    public struct InstanceNormStatistics: Sendable {
        public let layer: Int
        public let source: Buffer
        public let shape: DenseShape
        public init(layer: Int, source: Buffer, shape: DenseShape) {
            precondition(shape.channels <= StyleNetwork.maxChannels)
            self.layer = layer
            self.source = source
            self.shape = shape
        }
    }

    /// `y = activation(x * scale + shift) [+ residual]`, in place or not.
    public struct InstanceNormApply: Sendable {
        public let layer: Int
        public let source: Buffer
        public let destination: Buffer
        public let shape: DenseShape
        public let activation: Activation
        public let residual: Buffer?
        public init(layer: Int, source: Buffer, destination: Buffer, shape: DenseShape, activation: Activation, residual: Buffer?) {
            precondition(shape.channels <= StyleNetwork.maxChannels)
            self.layer = layer
            self.source = source
            self.destination = destination
            self.shape = shape
            self.activation = activation
            self.residual = residual
        }
    }

    /// Per-channel mean and sum of squared deviations (M2) over a whole dense map, into
    /// `destination` as [mean, M2] pairs (fp32): tiled execution reads them back for each tile
    /// and merges them over the whole image in double (`RunningMoments`) before any tile is
    /// normalised.
    public struct InstanceNormMoments: Sendable {
        public let layer: Int
        public let source: Buffer
        public let destination: Buffer
        public let shape: DenseShape
        public init(layer: Int, source: Buffer, destination: Buffer = .moments, shape: DenseShape) {
            precondition(shape.channels <= StyleNetwork.maxChannels)
            self.layer = layer
            self.source = source
            self.destination = destination
            self.shape = shape
        }
        public var floatCount: Int { 2 * shape.channels }
    }

    /// A `Pad` and the `Convolution` that reads it as one step, with the in-place
    /// `InstanceNormApply` that made the pad's source before them when `normalize` is set (made by
    /// `fusingPads()`, which checks that nothing else reads the pad's output or the normalised
    /// map). The CPU backend makes the padded input band by band as the convolution reads it
    /// (`gs_conv2d_banded`), so neither the padded copy nor the normalised map is ever written;
    /// the Vulkan backend records the parts.
    public struct FusedConvolution: Sendable {
        public let normalize: InstanceNormApply?
        public let convolution: Convolution
        /// The statistics of the convolution's output that follow it, taken as its tiles are
        /// stored (the CPU backend's kernel epilogue), when set.
        public let statistics: InstanceNormStatistics?
        public init(normalize: InstanceNormApply?, convolution: Convolution, statistics: InstanceNormStatistics? = nil) {
            let pad = convolution.input
            precondition(normalize.map { $0.source == pad.source && $0.destination == pad.source && $0.residual == nil
                                         && $0.shape == pad.sourceShape } ?? true,
                         "a fused normalisation is the in-place apply, without residual, of the pad's source")
            precondition(convolution.destination != pad.source, "a fused convolution writes the map it pads")
            precondition(statistics.map { $0.source == convolution.destination && $0.shape == convolution.outputShape } ?? true,
                         "fused statistics are of the convolution's output")
            self.normalize = normalize
            self.convolution = convolution
            self.statistics = statistics
        }
        public var pad: Pad { convolution.input }
        /// The steps this one stands for, in order.
        public var parts: [Step] {
            (normalize.map { [Step.instanceNormApply($0)] } ?? []) + [.pad(pad), .convolution(convolution)]
                + (statistics.map { [Step.instanceNormStatistics($0)] } ?? [])
        }
    }

    public enum Step: Sendable {
        case pad(Pad)
        case convolution(Convolution)
        case fusedConvolution(FusedConvolution)
        case instanceNormStatistics(InstanceNormStatistics)
        case instanceNormApply(InstanceNormApply)
        case instanceNormMoments(InstanceNormMoments)
        // The ops of lowered graphs (`PlanSteps.swift`).
        case conv2d(Conv2D)
        case invertedResidual(InvertedResidual)
        case transposedConv2d(TransposedConv2D)
        case activation(ActivationStep)
        case add(Add)
        case channelMultiply(ChannelMultiply)
        case globalAveragePool(GlobalAveragePool)
        case maxPool(MaxPool)
        case softmax(Softmax)
        case copy(Copy)
        case resize(Resize)
        case pad2d(Pad2D)
        case fakeQuant(FakeQuant)
        case quantizedInstanceNorm(QuantizedInstanceNormStep)
    }

    public let inputShape: DenseShape
    public let outputShape: DenseShape
    public let output: Buffer
    public let steps: [Step]
    /// Floats needed by each buffer (the maximum over its uses).
    public let bufferFloats: [Buffer: Int]
    /// The weights graph steps index (nil for the style network, whose backend holds its
    /// `ConvolutionWeights`).
    public let constants: ModelConstants?

    /// Floats of the output tensor at the start of `output` when a run should return only those
    /// (nil: the whole buffer).
    public let outputFloats: Int?

    /// Floats a run returns of `buffer`: of the plan's output only its output tensor when the plan
    /// says where it ends (the lowerings do: the style network's output shares a buffer with
    /// 32-channel maps, 32 MB at 512x512 where the image is 3 MB, and copying all of it into a
    /// fresh array cost 8,200 page faults and 40 % of the time per run), else the whole buffer.
    public func returnedFloats(_ buffer: Buffer) -> Int {
        let floats = bufferFloats[buffer]!
        return buffer == output ? min(floats, outputFloats ?? floats) : floats
    }

    /// A plan of arbitrary steps (op tests use single steps). `outputFloats`: see the property.
    public init(steps: [Step], bufferFloats: [Buffer: Int], inputShape: DenseShape, output: Buffer, outputShape: DenseShape,
                outputFloats: Int? = nil, constants: ModelConstants? = nil) {
        self.steps = steps
        self.outputFloats = outputFloats
        self.bufferFloats = bufferFloats
        self.inputShape = inputShape
        self.output = output
        self.outputShape = outputShape
        self.constants = constants
    }

    /// Per-layer parameter tables (γβ in, scale/shift out) hold this many floats per layer.
    public static var parametersPerLayer: Int { 2 * StyleNetwork.maxChannels }
}

extension ExecutionPlan {
    /// Mirrors `index` into `0..<count` (numpy's 'reflect': the edge is not repeated; valid for
    /// overhangs smaller than `count`).
    @inline(__always)
    public static func reflect(_ index: Int, _ count: Int) -> Int {
        index < 0 ? -index : (index >= count ? 2 * (count - 1) - index : index)
    }
}

@inline(__always)
func roundUp(_ value: Int, _ multiple: Int) -> Int {
    (value + multiple - 1) / multiple * multiple
}
