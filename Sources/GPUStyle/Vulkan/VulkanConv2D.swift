import CVulkan

/// Graph convolutions' weights on the device: uploaded once per `ModelConstants` object (before
/// a run records anything) and kept with the backend. The constants objects are retained so
/// an `ObjectIdentifier` is never reused while its uploads live.
final class VulkanGraphConstants {
    struct Key: Hashable {
        let constants: ObjectIdentifier
        /// What was uploaded: "conv4" (vec4-packed) or "conv1" (as given) weights, or "extras"
        /// (bias then PReLU slopes, zeros for the missing ones).
        let kind: String
        let indices: [Int]
    }

    private(set) var uploads: [Key: (allocation: VulkanBufferPool.Allocation, bytes: Int)] = [:]
    private var retained: [ObjectIdentifier: ModelConstants] = [:]

    func range(_ key: Key) -> VulkanBufferRange {
        let upload = uploads[key]!
        return upload.allocation.range.slice(offset: 0, size: upload.bytes)
    }

    func contains(_ key: Key) -> Bool { uploads[key] != nil }

    func insert(_ key: Key, _ allocation: VulkanBufferPool.Allocation, bytes: Int, constants: ModelConstants) {
        uploads[key] = (allocation, bytes)
        retained[key.constants] = constants
    }

    func release(_ pool: VulkanBufferPool) {
        for upload in uploads.values { pool.free(upload.allocation) }
        uploads = [:]
        retained = [:]
    }
}

/// Recording of `Conv2D` (conv2d_graph.comp) and `TransposedConv2D` (transposed_conv2d.comp).
extension VulkanBackend {
    static let conv2dGraph4 = VulkanShader(name: "conv2d_graph",
                                           bindings: [.texels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32G32B32A32_SFLOAT),
                                                      .texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                           pushConstantWords: 23)
    static let conv2dGraph1 = VulkanShader(name: "conv2d_graph",
                                           bindings: [.texels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32_SFLOAT),
                                                      .texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                           pushConstantWords: 23)
    /// conv2dGraph4 reading its input as vec4s (VEC_INPUT).
    static let conv2dGraph4Vec = VulkanShader(name: "conv2d_graph",
                                              bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .texels(VK_FORMAT_R32G32B32A32_SFLOAT),
                                                         .texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                              pushConstantWords: 23)
    static let transposedConv2d = VulkanShader(name: "transposed_conv2d",
                                               bindings: [.texels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32_SFLOAT),
                                                          .texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                               pushConstantWords: 9)

    /// A fused fake quantisation's push words (fake_quant.glsl's scale, zero point, low, high;
    /// zeros: none).
    static func quantizeWords(_ q: NetworkGraph.FakeQuantize?) -> [UInt32] {
        guard let q else { return [0, 0, 0, 0] }
        precondition(q.scale > 0 && q.scale.isFinite, "fake_quant: the scale is not positive")
        return [q.scale, Float(q.zeroPoint), Float(q.low), Float(q.high)].map(\.bitPattern)
    }

    /// Output channels per invocation: 4 when every group's outputs split into vec4 blocks.
    static func channelsPerInvocation(_ conv: ExecutionPlan.Conv2D) -> Int {
        (conv.output.channels / conv.groups) % 4 == 0 ? 4 : 1
    }

    /// Output pixels below which a dense layer keeps conv2d_graph.comp: on a map this small
    /// (a fully connected layer, a 1x1 head) each weight is used once or a few times, so the
    /// uniform-buffer shaders would spend one dispatch per 64 KiB piece for nothing (lavapipe:
    /// 110-200 us each, AMD EPYC Zen 4; the mesh model's 32x3x3 -> 1404x1x1 head took 26
    /// dispatches and 3.4 ms against 0.26 ms in conv2d_graph.comp, which reads its weights
    /// through a texel view in one dispatch).
    /// MobileNetV2's 1280 -> 1000 classifier through conv2d_graph_pointwise.comp took 22.2 ms
    /// against 1.6 ms here (one pixel: one busy lane of 8, 1280 channels a workgroup; AMD EPYC
    /// Zen 4, 2 shared cores).
    static let minimumUniformWeightsPlane = 16

    /// The uniform-buffer shader's weight layout for `conv`, or nil when it runs
    /// conv2d_graph.comp (grouped layers other than depthwise, dense layers on tiny maps).
    static func graphWeightsLayout(_ conv: ExecutionPlan.Conv2D, winograd: Bool = true) -> VulkanGraphWeights? {
        guard VulkanGraphWeights.fits(conv) else { return nil }
        if conv.isDepthwise { return VulkanGraphWeights(conv, kind: .depthwise) }
        guard conv.groups == 1, conv.output.height * conv.output.width >= minimumUniformWeightsPlane else { return nil }
        return VulkanGraphWeights(conv, kind: conv.isPointwise ? .pointwise : winograd && runsWinograd(conv) ? .winograd : .general)
    }

    /// The uniform-buffer layout of `conv` on this backend (`usesWinograd`, and not in a plan
    /// with fake quantisation: `recordingAllowsWinograd`).
    func graphWeightsLayout(_ conv: ExecutionPlan.Conv2D) -> VulkanGraphWeights? {
        Self.graphWeightsLayout(conv, winograd: usesWinograd && recordingAllowsWinograd)
    }

    /// Whether a plan may run its 3x3 layers by Winograd: not when it has fake quantisation
    /// (a fake_quant step, or one fused into a convolution, add or block). A quantised network's
    /// one-byte levels must not depend on how its maps are cut or which quantisations were fused:
    /// `StagedTransform` runs the arbitrary-style transform in tiles whose sizes fall on either
    /// side of `winogradMinimumRuns`, and the direct shader sums each pixel's products in the
    /// same order on any tile or plan while Winograd's transforms round differently
    /// (StagedTransformTests, ArbitraryStyleTests.testFusedQuantizationChangesNoValue).
    static func allowsWinograd(_ plan: ExecutionPlan) -> Bool {
        !plan.steps.flatMap(\.parts).contains { step in
            switch step {
            case .fakeQuant, .quantizedInstanceNorm: true
            case .conv2d(let conv): conv.quantize != nil
            case .add(let add): add.quantize != nil
            case .invertedResidual(let block): block.isQuantized
            default: false
            }
        }
    }

    private func weightKey(_ conv: ExecutionPlan.Conv2D, _ constants: ModelConstants) -> VulkanGraphConstants.Key {
        if let layout = graphWeightsLayout(conv) {
            return .init(constants: ObjectIdentifier(constants), kind: "pieces \(layout)", indices: [conv.weights])
        }
        if Self.runsGemv(conv) {
            return .init(constants: ObjectIdentifier(constants), kind: "gemv", indices: [conv.weights, conv.output.channels])
        }
        let co = Self.channelsPerInvocation(conv)
        return .init(constants: ObjectIdentifier(constants), kind: "conv\(co)",
                     indices: co == 4 ? [conv.weights, conv.groups, conv.output.channels] : [conv.weights])
    }

    private func extrasKey(bias: Int?, slopes: Int?, channels: Int, _ constants: ModelConstants) -> VulkanGraphConstants.Key {
        .init(constants: ObjectIdentifier(constants), kind: "extras", indices: [bias ?? -1, slopes ?? -1, channels])
    }

    /// The uploaded weights and extras (bias, PReLU slopes) of a uniform-buffer graph convolution.
    func graphConstantRanges(_ conv: ExecutionPlan.Conv2D) -> (weights: VulkanBufferRange, extras: VulkanBufferRange) {
        guard let constants = currentConstants else { preconditionFailure("a conv2d step in a plan without constants") }
        let slopes = conv.activation.kind == .prelu ? conv.activation.slopes : nil
        return (graphConstants.range(weightKey(conv, constants)),
                graphConstants.range(extrasKey(bias: conv.bias, slopes: slopes, channels: conv.output.channels, constants)))
    }

    /// Uploads what the plan's convolutions need and is not on the device yet. Called before
    /// the run uses the staging buffer.
    func prepareGraphConstants(_ plan: ExecutionPlan) throws {
        guard let constants = plan.constants else { return }
        func store(_ key: VulkanGraphConstants.Key, _ values: () -> [Float]) throws {
            guard !graphConstants.contains(key) else { return }
            let floats = values()
            let allocation = try pool.allocate(bytes: 4 * max(floats.count, 1))
            try upload(floats.isEmpty ? [0] : floats, to: allocation.range)
            graphConstants.insert(key, allocation, bytes: 4 * max(floats.count, 1), constants: constants)
        }
        func extras(bias: Int?, slopes: Int?, channels: Int) -> [Float] {
            let b = bias.map { constants[$0] } ?? [Float](repeating: 0, count: channels)
            let s = slopes.map { constants[$0] } ?? [Float](repeating: 0, count: channels)
            precondition(b.count == channels && s.count == channels, "bias or slopes are not one value per channel")
            return b + s
        }
        for step in plan.steps.flatMap(\.parts) {
            switch step {
            case .conv2d(let conv):
                let weights = constants[conv.weights]
                let cin = conv.input.channels / conv.groups, coutG = conv.output.channels / conv.groups
                let taps = conv.kernelHeight * conv.kernelWidth
                precondition(weights.count == conv.weightCount, "conv2d: \(constants.names[conv.weights]) has the wrong size")
                try store(weightKey(conv, constants)) {
                    if let layout = graphWeightsLayout(conv) { return layout.pack(weights) }
                    if Self.runsGemv(conv) { return Self.gemvWeights(weights, outputs: conv.output.channels) }
                    guard Self.channelsPerInvocation(conv) == 4 else { return weights }
                    // [group][block][in][kh][kw][4]: the 4 output channels of a block side by side.
                    var packed = [Float](repeating: 0, count: weights.count)
                    var i = 0
                    for g in 0..<conv.groups {
                        for block in 0..<coutG / 4 {
                            for k in 0..<cin * taps {
                                for c in 0..<4 {
                                    packed[i] = weights[(g * coutG + block * 4 + c) * cin * taps + k]
                                    i += 1
                                }
                            }
                        }
                    }
                    return packed
                }
                let slopes = conv.activation.kind == .prelu ? conv.activation.slopes : nil
                try store(extrasKey(bias: conv.bias, slopes: slopes, channels: conv.output.channels, constants)) {
                    extras(bias: conv.bias, slopes: slopes, channels: conv.output.channels)
                }
            case .transposedConv2d(let conv):
                try store(.init(constants: ObjectIdentifier(constants), kind: "conv1", indices: [conv.weights])) {
                    constants[conv.weights]
                }
                let slopes = conv.activation.kind == .prelu ? conv.activation.slopes : nil
                try store(extrasKey(bias: conv.bias, slopes: slopes, channels: conv.output.channels, constants)) {
                    extras(bias: conv.bias, slopes: slopes, channels: conv.output.channels)
                }
            default:
                break
            }
        }
    }

    /// A graph region as a binding (fp16 buffers have 2-byte elements).
    func binding(_ region: ExecutionPlan.Region) -> VulkanBufferRange {
        let element = elementBytes(region.buffer)
        return range(region.buffer).slice(offset: element * region.offset, size: element * max(region.floatCount, 1))
    }

    /// `shader` (bindings: input, weights, extras, output) with R16 views for a convolution's
    /// regions in fp16 buffers, and the "_f16" build when the output is one.
    func storing(_ shader: VulkanShader, for conv: ExecutionPlan.Conv2D) -> VulkanShader {
        shader.storing(half: [isHalf(conv.input.buffer), false, false, isHalf(conv.output.buffer)])
    }

    /// Workgroups of 64 for `total` invocations in a grid whose rows stay within the device's
    /// workgroup-count limit; returns the groups and the invocations per grid row.
    private func linearGroups(_ total: Int) -> (groups: (x: Int, y: Int, z: Int), rowLength: Int) {
        let groups = (total + 63) / 64
        let x = min(groups, Int(context.limits.maxComputeWorkGroupCount.0))
        return ((x, (groups + x - 1) / x, 1), 64 * x)
    }

    /// `add`: an add step fused into a 1x1 convolution's epilogue (`fusedAdd`); `keepSum`:
    /// whether the convolution's own output is still stored then.
    func recordConv2D(_ conv: ExecutionPlan.Conv2D, index: Int, add: ExecutionPlan.Add? = nil, keepSum: Bool = true) throws {
        guard let constants = currentConstants else { preconditionFailure("a conv2d step in a plan without constants") }
        let label = "step \(index): conv2d \(conv.kernelHeight)x\(conv.kernelWidth)/\(conv.strideY) "
            + "\(conv.input.shape) -> \(conv.output.shape) groups \(conv.groups)"
        precondition(add == nil || graphWeightsLayout(conv)?.kind == .pointwise, "only 1x1 convolutions fuse an add")
        if let layout = graphWeightsLayout(conv) {
            let (weights, extras) = graphConstantRanges(conv)
            switch layout.kind {
            case .pointwise:
                try recordConv2DPointwise(conv, layout: layout, weights: weights, extras: extras, add: add, keepSum: keepSum,
                                          label: add == nil ? label : label + " + add")
            case .general: try recordConv2DGeneral(conv, layout: layout, weights: weights, extras: extras, label: label)
            case .depthwise: try recordConv2DDepthwise(conv, layout: layout, weights: weights, extras: extras, label: label)
            case .winograd: try recordConv2DWinograd(conv, layout: layout, weights: weights, extras: extras, label: label)
            }
            return
        }
        if Self.runsGemv(conv) {
            let (weights, extras) = graphConstantRanges(conv)
            try recordConv2DGemv(conv, weights: weights, extras: extras, label: label)
            return
        }
        let co = Self.channelsPerInvocation(conv)
        let coutG = conv.output.channels / conv.groups
        // 8 channels x 4 pixels per invocation where possible: MobileNetV2's 1x1 layers went
        // from 0.4 to 1.7 GFLOP/s on lavapipe, depthwise from 0.2 to 0.4 (Conv2DTimingTests);
        // 1x1 outputs (fully connected) one pixel each.
        let blocks = co == 4 && coutG % 8 == 0 ? 2 : 1
        let outPlane = conv.output.height * conv.output.width
        let pixels = outPlane >= 16 ? 4 : 1
        let blocksPerGroup = (coutG + co * blocks - 1) / (co * blocks)
        let total = (outPlane + pixels - 1) / pixels * blocksPerGroup * conv.groups
        let (groups, rowLength) = linearGroups(total)
        // Whole vec4s of input pixels for 1x1 layers on planes of 4k pixels.
        let vectorInput = co == 4 && pixels == 4 && conv.isPointwise && outPlane % 4 == 0 && conv.input.offset % 4 == 0
        let shader = vectorInput ? Self.conv2dGraph4Vec : co == 4 ? Self.conv2dGraph4 : Self.conv2dGraph1
        let pipeline = try pipelines.pipeline(storing(shader, for: conv),
                                              constants: [co, blocks, pixels, vectorInput ? 1 : 0].map(UInt32.init))
        let slopes = conv.activation.kind == .prelu ? conv.activation.slopes : nil
        let ints: [Int] = [conv.input.width, conv.input.height, conv.output.width, conv.output.height,
                           conv.input.channels / conv.groups, coutG, blocksPerGroup, conv.output.channels,
                           conv.kernelHeight, conv.kernelWidth, conv.strideY, conv.strideX, conv.padding.top, conv.padding.left,
                           Int(conv.activation.kind.rawValue)]
        let push = ints.map { UInt32(bitPattern: Int32($0)) }
            + [conv.activation.alpha.bitPattern, conv.activation.beta.bitPattern, UInt32(total), UInt32(rowLength)]
            + Self.quantizeWords(conv.quantize)
        try recorder.dispatch(pipeline,
                              buffers: [binding(conv.input), graphConstants.range(weightKey(conv, constants)),
                                        graphConstants.range(extrasKey(bias: conv.bias, slopes: slopes,
                                                                       channels: conv.output.channels, constants)),
                                        binding(conv.output)],
                              push: push, groups: groups, label: label)
    }

    func recordTransposedConv2D(_ conv: ExecutionPlan.TransposedConv2D, index: Int) throws {
        guard let constants = currentConstants else { preconditionFailure("a transposed_conv2d step in a plan without constants") }
        precondition(conv.output.height == 2 * conv.input.height && conv.output.width == 2 * conv.input.width,
                     "transposed_conv2d: the output is not twice the input's size")
        let total = conv.output.floatCount
        let (groups, rowLength) = linearGroups(total)
        let pipeline = try pipelines.pipeline(Self.transposedConv2d.storing(half: [isHalf(conv.input.buffer), false, false,
                                                                                     isHalf(conv.output.buffer)]))
        let f = conv.activation
        let push = [conv.input.width, conv.input.height, conv.input.channels, conv.output.channels, total, rowLength].map(UInt32.init)
            + [f.kind.rawValue, f.alpha.bitPattern, f.beta.bitPattern]
        let slopes = f.kind == .prelu ? f.slopes : nil
        let id = ObjectIdentifier(constants)
        try recorder.dispatch(pipeline,
                              buffers: [binding(conv.input), graphConstants.range(.init(constants: id, kind: "conv1", indices: [conv.weights])),
                                        graphConstants.range(extrasKey(bias: conv.bias, slopes: slopes, channels: conv.output.channels, constants)),
                                        binding(conv.output)],
                              push: push, groups: groups,
                              label: "step \(index): transposed_conv2d \(conv.input.shape) -> \(conv.output.shape)")
    }
}
