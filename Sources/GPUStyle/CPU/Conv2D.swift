import CKernels

/// `ExecutionPlan.Conv2D` and `TransposedConv2D` on the CPU (`CKernels/conv2d_graph.c`). Each
/// convolution's weights are packed once per `ModelConstants` object (`CPUGraphWeights`) and
/// the work is split into the kernel's tasks over all cores.
final class CPUConv2D {
    /// The packed weights and copies of the bias and PReLU slopes the kernel points at.
    let prepared: UnsafeMutableBufferPointer<Float>
    private let bias: UnsafeMutableBufferPointer<Float>?
    private let slopes: UnsafeMutableBufferPointer<Float>?
    /// The kernel's algorithm for these weights (`gs_conv2d_kind`: the packing depends on it).
    let kind: Int32
    /// The weights as bf16 pairs (`bf16Pairs`), packed on first use.
    private var pairs: UnsafeMutableBufferPointer<UInt32>?

    /// `kind` packs the weights for that algorithm instead of the one `gs_conv2d_kind` picks
    /// (the fused inverted residual runs its 1x1 convolutions as GEMMs on any map).
    init(_ step: ExecutionPlan.Conv2D, constants: ModelConstants, kind: Int32? = nil) {
        var p = Self.parameters(step)
        let kind = kind ?? gs_conv2d_kind(&p)
        self.kind = kind
        let weights = constants[step.weights]
        precondition(weights.count == step.weightCount, "conv2d: \(constants.names[step.weights]) has the wrong size")
        let packed = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, Int(gs_conv2d_prepared_count_kind(&p, kind))))
        weights.withUnsafeBufferPointer { gs_conv2d_prepare_kind(&p, kind, $0.baseAddress!, packed.baseAddress!) }
        prepared = packed
        func copy(_ index: Int?) -> UnsafeMutableBufferPointer<Float>? {
            guard let index else { return nil }
            let values = constants[index]
            precondition(values.count == step.output.channels, "conv2d: \(constants.names[index]) is not one value per channel")
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values)
            return buffer
        }
        bias = copy(step.bias)
        slopes = step.activation.kind == .prelu ? copy(step.activation.slopes) : nil
        precondition(step.activation.kind != .prelu || slopes != nil, "conv2d: PReLU without slopes")
    }

    deinit {
        pairs?.deallocate()
        prepared.deallocate()
        bias?.deallocate()
        slopes?.deallocate()
    }

    /// The weights as bf16 pairs for the bf16 kernels (`gs_conv2d_bf16_pack`, from kind 2's or
    /// 3's packing: the GEMV, the small-map kernel, the fused block's 1x1 convolutions), packed on
    /// first use.
    func bf16Pairs(_ step: ExecutionPlan.Conv2D) -> UnsafePointer<UInt32> {
        var p = Self.parameters(step)
        precondition(gs_conv2d_bf16_kind(&p, kind) != 0, "conv2d: no bf16 kernel for kind \(kind)")
        if let pairs { return UnsafePointer(pairs.baseAddress!) }
        let made = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Int(gs_conv2d_bf16_packed_count(&p, kind)))
        gs_conv2d_bf16_pack(&p, kind, prepared.baseAddress!, made.baseAddress!)
        pairs = made
        return UnsafePointer(made.baseAddress!)
    }

    /// `gs_conv2d_kind`'s number for Winograd's F(4x4, 3x3) (3x3, stride 1, padded by 1).
    static let winogradKind: Int32 = 6

    /// The algorithm `gs_conv2d_kind` picks for `step` (what a standalone conv2d step runs).
    static func kind(_ step: ExecutionPlan.Conv2D) -> Int32 {
        var p = parameters(step)
        return gs_conv2d_kind(&p)
    }

    /// The C description of `step` (bias and slope pointers left nil).
    static func parameters(_ step: ExecutionPlan.Conv2D) -> gs_conv2d_params {
        precondition(step.input.channels % step.groups == 0 && step.output.channels % step.groups == 0,
                     "conv2d: channels not divisible by groups")
        precondition(step.output.height == (step.input.height + step.padding.top + step.padding.bottom
                                            - step.kernelHeight) / step.strideY + 1
                     && step.output.width == (step.input.width + step.padding.left + step.padding.right
                                              - step.kernelWidth) / step.strideX + 1,
                     "conv2d: output size does not match input, kernel, stride and padding")
        var p = gs_conv2d_params()
        p.in_channels = Int32(step.input.channels)
        p.in_height = Int32(step.input.height)
        p.in_width = Int32(step.input.width)
        p.out_channels = Int32(step.output.channels)
        p.out_height = Int32(step.output.height)
        p.out_width = Int32(step.output.width)
        p.kernel_height = Int32(step.kernelHeight)
        p.kernel_width = Int32(step.kernelWidth)
        p.stride_y = Int32(step.strideY)
        p.stride_x = Int32(step.strideX)
        p.pad_top = Int32(step.padding.top)
        p.pad_left = Int32(step.padding.left)
        p.groups = Int32(step.groups)
        p.activation = Int32(step.activation.kind.rawValue)
        p.alpha = step.activation.alpha
        p.beta = step.activation.beta
        if let q = step.quantize { (p.quant_scale, p.quant_low, p.quant_high) = q.kernelBounds }
        return p
    }

    /// The C description of `step` with this object's bias and slopes (valid while it lives).
    func kernelParameters(_ step: ExecutionPlan.Conv2D) -> gs_conv2d_params {
        var p = Self.parameters(step)
        p.bias = bias.map { UnsafePointer($0.baseAddress!) }
        p.slopes = slopes.map { UnsafePointer($0.baseAddress!) }
        return p
    }

    /// With `residual`, the add step fused into this convolution (`CPUBackend.fusedAdd`): the
    /// add's other operand is added after the activation, then the add's fake quantisation, and
    /// `output` is the add's.
    func run(_ step: ExecutionPlan.Conv2D, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
             residual: (addend: UnsafePointer<Float>, quantize: NetworkGraph.FakeQuantize?)? = nil) {
        var p = kernelParameters(step)
        if let residual {
            precondition(gs_conv2d_takes_residual(&p) != 0 && !Self.runsBF16(&p, kind: kind), "conv2d: no fused add for this kernel")
            p.residual = residual.addend
            if let q = residual.quantize { (p.residual_scale, p.residual_low, p.residual_high) = q.kernelBounds }
        }
        let tasks = Int(gs_conv2d_tasks(&p))
        // Tasks of under ~50k multiply-adds are grouped: waking a worker costs microseconds.
        let grain = max(1, 50_000 / max(1, step.multiplyAdds / max(tasks, 1)))
        let params = p
        if Self.runsBF16(&p, kind: kind) {
            // The GEMV and the small-map kernel on bf16 pairs: the input rounded once per run.
            let weights = bf16Pairs(step), kind = kind
            let pairs = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(gs_conv2d_bf16_input_count(&p, kind)))
            defer { pairs.deallocate() }
            gs_conv2d_bf16_input(&p, kind, input, pairs)
            ParallelFor.ranges(tasks, grain: grain) { range in
                var local = params
                gs_conv2d_run_bf16(&local, kind, pairs, weights, output, Int64(range.lowerBound), Int64(range.upperBound))
            }
            return
        }
        ParallelFor.ranges(tasks, grain: grain) { range in
            var local = params
            gs_conv2d_run(&local, input, prepared.baseAddress!, output, Int64(range.lowerBound), Int64(range.upperBound))
        }
    }

    /// Whether `run` takes the bf16 kernels for a convolution of this kind now.
    static func runsBF16(_ p: inout gs_conv2d_params, kind: Int32) -> Bool {
        ConvolutionPrecision.inUse == .bf16 && gs_conv2d_bf16_kind(&p, kind) != 0
    }

    /// Kernel 2, stride 2, weights [in][out][2][2], bias and the fused activation; parallel over
    /// row pairs of blocks of output channels.
    static func runTransposed(_ step: ExecutionPlan.TransposedConv2D, constants: ModelConstants,
                              input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let cin = step.input.channels, cout = step.output.channels
        precondition(step.output.height == 2 * step.input.height && step.output.width == 2 * step.input.width,
                     "transposed_conv2d: the output is not twice the input's size")
        let weights = constants[step.weights]
        precondition(weights.count == cin * cout * 4, "transposed_conv2d: \(constants.names[step.weights]) has the wrong size")
        let bias = step.bias.map { constants[$0] }
        precondition(bias == nil || bias!.count == cout, "transposed_conv2d: bias is not one value per channel")
        let f = step.activation
        let slopes = f.kind == .prelu ? f.slopes.map { constants[$0] } : nil
        precondition(f.kind != .prelu || slopes?.count == cout, "transposed_conv2d: PReLU without one slope per channel")
        weights.withUnsafeBufferPointer { w in
            (bias ?? []).withUnsafeBufferPointer { b in
                (slopes ?? []).withUnsafeBufferPointer { s in
                    let biasPointer = bias == nil ? nil : b.baseAddress, slopePointer = slopes == nil ? nil : s.baseAddress
                    let rows = Int32(step.input.height)
                    let items = Int(gs_transposed_conv2d_items(Int32(cout), rows))
                    let perItem = 4 * cin * Int(GS_TRANSPOSED_BLOCK) * step.input.width
                    ParallelFor.ranges(items, grain: max(1, 50_000 / max(1, perItem))) { range in
                        gs_transposed_conv2d(input, Int32(cin), rows, Int32(step.input.width), w.baseAddress!, biasPointer,
                                             Int32(cout), Int32(f.kind.rawValue), f.alpha, f.beta, slopePointer, output,
                                             Int64(range.lowerBound), Int64(range.upperBound))
                    }
                }
            }
        }
    }
}

extension CPUBackend {
    /// The convolution at `index` and the add step after it when the add runs as the
    /// convolution's epilogue: `ExecutionPlan.fusableResidualAdd`, a kernel that takes a
    /// residual (`gs_conv2d_takes_residual`: the GEMM and the small-map kernel, fp32), and no later
    /// step (nor the caller) reading the convolution's own output, which is then never stored.
    func fusedAdd(_ plan: ExecutionPlan, at index: Int, downloading outputs: [ExecutionPlan.Buffer])
        -> (ExecutionPlan.Conv2D, ExecutionPlan.Add)? {
        guard fusesResidualAdds, index + 1 < plan.steps.count, case .conv2d(let conv) = plan.steps[index],
              let add = ExecutionPlan.fusableResidualAdd(conv, plan.steps[index + 1]) else { return nil }
        var p = CPUConv2D.parameters(conv)
        let kind = gs_conv2d_kind(&p)
        guard gs_conv2d_takes_residual(&p) != 0, !CPUConv2D.runsBF16(&p, kind: kind),
              !plan.reads(conv.output, after: index + 1, downloading: outputs) else { return nil }
        return (conv, add)
    }
}

/// Prepared convolutions, one per (constants object, weight layout); the constants objects are
/// retained so an `ObjectIdentifier` is never reused while its entries live.
final class CPUGraphWeights {
    private struct Key: Hashable {
        let constants: ObjectIdentifier
        let weights: Int
        let bias: Int?
        let slopes: Int?
        /// The packed layout depends on the algorithm, groups, output channels and taps.
        let layout: [Int32]
    }

    private var prepared: [Key: CPUConv2D] = [:]
    private var retained: [ObjectIdentifier: ModelConstants] = [:]

    /// How many convolutions have been prepared (tests check nothing is repacked per run).
    var count: Int { prepared.count }

    func convolution(_ step: ExecutionPlan.Conv2D, constants: ModelConstants, kind: Int32? = nil) -> CPUConv2D {
        var p = CPUConv2D.parameters(step)
        let kind = kind ?? gs_conv2d_kind(&p)
        let key = Key(constants: ObjectIdentifier(constants), weights: step.weights, bias: step.bias,
                      slopes: step.activation.kind == .prelu ? step.activation.slopes : nil,
                      layout: [kind, p.groups, p.out_channels, p.in_channels, p.kernel_height, p.kernel_width])
        if let existing = prepared[key] { return existing }
        let made = CPUConv2D(step, constants: constants, kind: kind)
        prepared[key] = made
        retained[key.constants] = constants
        return made
    }
}
