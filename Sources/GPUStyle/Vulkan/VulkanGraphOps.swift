import CVulkan

/// Shaders of the lowered graph steps other than convolutions (`PlanSteps.swift`). Tensors are
/// read through R32 texel views and written through R32 storage texel views (why texel views:
/// see `VulkanShader.conv2d`), or R16 views for buffers in fp16 storage (`graphPipeline`).
extension VulkanShader {
    private static func graph(_ name: String, inputs: Int, push: Int) -> VulkanShader {
        VulkanShader(name: name, bindings: Array(repeating: .texels(VK_FORMAT_R32_SFLOAT), count: inputs)
                        + [.storageTexels(VK_FORMAT_R32_SFLOAT)], pushConstantWords: push)
    }
    static let activation = graph("activation", inputs: 1, push: 10 + VulkanBackend.slopesPerDispatch)
    static let add = graph("add", inputs: 2, push: 11 + VulkanBackend.slopesPerDispatch)
    static let channelMultiply = graph("channel_multiply", inputs: 2, push: 4)
    static let copy = graph("copy", inputs: 1, push: 3)
    static let globalAveragePool = graph("global_average_pool", inputs: 1, push: 3)
    /// globalAveragePool reducing with subgroupAdd (`VulkanContext.subgroupArithmetic`).
    static let globalAveragePoolSubgroup = graph("global_average_pool_subgroup", inputs: 1, push: 3)
    static let maxPool = graph("max_pool", inputs: 1, push: 10)
    static let softmax = graph("softmax", inputs: 1, push: 4)
    static let resize = graph("resize", inputs: 1, push: 6)
    static let pad2d = graph("pad2d", inputs: 1, push: 9)
    static let fakeQuant = graph("fake_quant", inputs: 1, push: 7)
    static let quantizedInstanceNorm = graph("quantized_instance_norm", inputs: 3, push: 27)
}

/// Recording of the graph steps. A region may start at any float (a concat writes channel
/// slices), so each is bound from the 256-byte boundary at or before it (every Vulkan offset
/// alignment divides 256) and its shader is told the float `base` where it starts. Steps that
/// work per channel are dispatched in channel chunks that fit `maxBindingBytes`.
///
/// On lavapipe (2 shared Zen 4 cores) the elementwise shaders move 0.5-1.2 GB/s on a 32x256x256
/// map, as instance_norm_apply.comp does (0.56 GB/s); 1 or 4 floats per invocation and grid-stride loops
/// measured the same (GraphOpTimingTests).
extension VulkanBackend {
    /// PReLU slopes travel in push constants, this many channels per dispatch (22-23 words of
    /// the 32 that every device allows): no constant upload for a rarely used activation.
    static let slopesPerDispatch = 16

    /// Channels `channels` of `region`, bound from the 256-byte boundary at or before them; the
    /// base is in elements (4 or 2 bytes: `elementBytes`).
    private func alignedBinding(_ region: ExecutionPlan.Region, _ channels: Range<Int>? = nil) -> (range: VulkanBufferRange, base: Int) {
        let channels = channels ?? 0..<region.channels
        let element = elementBytes(region.buffer)
        let start = element * (region.offset + channels.lowerBound * region.planeStride)
        let aligned = start / 256 * 256
        let bytes = start - aligned + element * max(1, channels.count * region.planeStride)
        return (range(region.buffer).slice(offset: aligned, size: bytes), (start - aligned) / element)
    }

    /// The pipeline of `shader` for a step whose bindings are `regions` in binding order: the
    /// views of regions in fp16 buffers are R16, and an fp16 output takes the "_f16" build.
    func graphPipeline(_ shader: VulkanShader, regions: [ExecutionPlan.Region], constants: [UInt32] = []) throws -> VulkanPipeline {
        try pipelines.pipeline(shader.storing(half: regions.map { isHalf($0.buffer) }), constants: constants)
    }

    /// Consecutive channel ranges of at most `limit` channels whose planes (for every given
    /// plane size, in floats) fit one binding with the 256-byte lead-in.
    private func graphChunks(_ channels: Int, planes: [Int], limit: Int = Int.max) throws -> [Range<Int>] {
        let perBinding = planes.map { (maxBindingBytes - 256) / (4 * max($0, 1)) }.min()!
        let size = min(perBinding, limit, Int(context.limits.maxComputeWorkGroupCount.1),
                       Int(context.limits.maxComputeWorkGroupCount.2))
        guard size > 0 else {
            throw VulkanError.unsupported("a graph feature map of \(planes.max()!) floats per channel exceeds the device's "
                                          + "storage buffer range (\(maxBindingBytes) bytes)")
        }
        return stride(from: 0, to: channels, by: size).map { $0..<min(channels, $0 + size) }
    }

    private func count(_ n: Int, _ size: Int) -> Int { (n + size - 1) / size }

    private func bits(_ value: Float) -> UInt32 { value.bitPattern }

    /// Push words (ints may be negative, as two's complement).
    private func words(_ values: [Int]) -> [UInt32] { values.map { UInt32(bitPattern: Int32($0)) } }

    func recordGraphStep(_ step: ExecutionPlan.Step, index: Int, constants: ModelConstants?) throws {
        switch step {
        case .activation(let s):
            precondition(s.input.shape == s.output.shape, "activation: input and output shapes differ")
            try recordElementwise(.activation, inputs: [s.input], output: s.output, function: s.function,
                                  quantize: s.quantize, constants: constants, label: "step \(index): activation \(s.function.kind)")
        case .add(let s):
            precondition(s.a.shape == s.output.shape && s.b.shape == s.output.shape, "add: shapes differ")
            try recordElementwise(.add, inputs: [s.a, s.b], output: s.output, function: s.activation,
                                  quantize: s.quantize, constants: constants, label: "step \(index): add")
        case .copy(let s):
            precondition(s.input.shape == s.output.shape, "copy: input and output shapes differ")
            try recordElementwise(.copy, inputs: [s.input], output: s.output, function: nil, constants: nil,
                                  label: "step \(index): copy")
        case .channelMultiply(let s): try recordChannelMultiply(s, index: index)
        case .globalAveragePool(let s): try recordGlobalAveragePool(s, index: index)
        case .maxPool(let s): try recordMaxPool(s, index: index)
        case .softmax(let s): try recordSoftmax(s, index: index)
        case .resize(let s): try recordResize(s, index: index)
        case .pad2d(let s): try recordPad2D(s, index: index)
        case .fakeQuant(let s): try recordFakeQuant(s, index: index)
        case .quantizedInstanceNorm(let s): try recordQuantizedInstanceNorm(s, index: index)
        default: throw VulkanError.unsupported("the \(step.opName) step has no Vulkan kernel yet")
        }
    }

    /// activation.comp, add.comp, copy.comp: 64 invocations x 4 floats along a plane, one
    /// channel per workgroup row; the first two with their fused fake quantisation.
    private func recordElementwise(_ shader: VulkanShader, inputs: [ExecutionPlan.Region], output: ExecutionPlan.Region,
                                   function: NetworkGraph.ActivationFunction?, quantize: NetworkGraph.FakeQuantize? = nil,
                                   constants: ModelConstants?, label: String) throws {
        let plane = output.planeStride
        var slopes: [Float] = []
        if let function, function.kind == .prelu {
            guard let index = function.slopes, let constants else {
                throw VulkanError.unsupported("\(label): PReLU without its slope constant")
            }
            slopes = constants[index]
        }
        let pipeline = try graphPipeline(shader, regions: inputs + [output])
        let limit = slopes.isEmpty ? Int.max : Self.slopesPerDispatch
        for chunk in try graphChunks(output.channels, planes: [plane], limit: limit) {
            let bound = (inputs + [output]).map { alignedBinding($0, chunk) }
            var push = words(bound.map(\.base) + [plane])
            if let function {
                push += [function.kind.rawValue, bits(function.alpha), bits(function.beta)]
                push += (0..<Self.slopesPerDispatch).map { i in
                    slopes.isEmpty || chunk.lowerBound + i >= chunk.upperBound ? 0 : bits(slopes[chunk.lowerBound + i])
                }
                push += Self.quantizeWords(quantize)
            }
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: push,
                                  groups: (count(plane, 256), chunk.count, 1), label: "\(label) c\(chunk)")
        }
    }

    private func recordChannelMultiply(_ s: ExecutionPlan.ChannelMultiply, index: Int) throws {
        let plane = s.output.planeStride
        precondition(s.input.shape == s.output.shape && s.scale.shape == .init(channels: s.output.channels, height: 1, width: 1),
                     "channel multiply: a [C][H][W] input and a [C][1][1] scale")
        let pipeline = try graphPipeline(.channelMultiply, regions: [s.input, s.scale, s.output])
        for chunk in try graphChunks(s.output.channels, planes: [plane]) {
            let bound = [alignedBinding(s.input, chunk), alignedBinding(s.scale, chunk), alignedBinding(s.output, chunk)]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: words(bound.map(\.base) + [plane]),
                                  groups: (count(plane, 256), chunk.count, 1), label: "step \(index): channel multiply c\(chunk)")
        }
    }

    private func recordGlobalAveragePool(_ s: ExecutionPlan.GlobalAveragePool, index: Int) throws {
        let plane = s.input.planeStride
        precondition(s.output.shape == .init(channels: s.input.channels, height: 1, width: 1),
                     "global average pool: the output is [C][1][1]")
        // 8 invocations on CPU drivers (see normStatsWorkgroup), 64 on GPUs; wider while an
        // invocation would loop more than 16384 times.
        let largest = min(1024, Int(context.limits.maxComputeWorkGroupSize.0), Int(context.limits.maxComputeWorkGroupInvocations))
        var workgroup = context.info.kind == .cpu ? 8 : 64
        while 2 * workgroup <= largest && count(plane, workgroup) > 16384 { workgroup *= 2 }
        let shader: VulkanShader = context.subgroupArithmetic && usesSubgroups ? .globalAveragePoolSubgroup : .globalAveragePool
        let pipeline = try graphPipeline(shader, regions: [s.input, s.output], constants: [UInt32(workgroup)])
        for chunk in try graphChunks(s.input.channels, planes: [plane]) {
            let bound = [alignedBinding(s.input, chunk), alignedBinding(s.output, chunk)]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: words(bound.map(\.base) + [plane]),
                                  groups: (chunk.count, 1, 1),
                                  label: "step \(index): global average pool c\(chunk)" + (shader == .globalAveragePool ? "" : " subgroupAdd"))
        }
    }

    private func recordMaxPool(_ s: ExecutionPlan.MaxPool, index: Int) throws {
        let input = s.input, output = s.output
        precondition(input.channels == output.channels, "max pool: channel counts differ")
        let pipeline = try graphPipeline(.maxPool, regions: [input, output])
        for chunk in try graphChunks(output.channels, planes: [input.planeStride, output.planeStride]) {
            let bound = [alignedBinding(input, chunk), alignedBinding(output, chunk)]
            let push = bound.map(\.base) + [input.width, input.height, output.width, output.height, s.kernel, s.stride,
                                            s.padding.top, s.padding.left]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: words(push),
                                  groups: (count(output.width, 8), count(output.height, 8), chunk.count),
                                  label: "step \(index): max pool \(s.kernel)/\(s.stride) c\(chunk)")
        }
    }

    /// One dispatch over all channels (each pixel needs every channel): the whole tensor must
    /// fit one binding.
    private func recordSoftmax(_ s: ExecutionPlan.Softmax, index: Int) throws {
        precondition(s.input.shape == s.output.shape, "softmax: input and output shapes differ")
        guard 4 * s.output.floatCount + 256 <= maxBindingBytes else {
            throw VulkanError.unsupported("softmax over a \(s.output.shape) map exceeds the device's storage buffer range")
        }
        let pipeline = try graphPipeline(.softmax, regions: [s.input, s.output])
        let bound = [alignedBinding(s.input), alignedBinding(s.output)]
        try recorder.dispatch(pipeline, buffers: bound.map(\.range),
                              push: words(bound.map(\.base) + [s.output.planeStride, s.output.channels]),
                              groups: (count(s.output.planeStride, 64), 1, 1), label: "step \(index): softmax")
    }

    private func recordResize(_ s: ExecutionPlan.Resize, index: Int) throws {
        let input = s.input, output = s.output
        precondition(output.shape == .init(channels: input.channels, height: input.height * s.scale, width: input.width * s.scale),
                     "resize: the output is the input times the scale")
        let pipeline = try graphPipeline(.resize, regions: [input, output])
        for chunk in try graphChunks(output.channels, planes: [input.planeStride, output.planeStride]) {
            let bound = [alignedBinding(input, chunk), alignedBinding(output, chunk)]
            let push = bound.map(\.base) + [input.width, input.height, s.scale, Int(s.mode.rawValue)]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: words(push),
                                  groups: (count(output.width, 8), count(output.height, 8), chunk.count),
                                  label: "step \(index): resize \(s.mode) x\(s.scale) c\(chunk)")
        }
    }

    /// fake_quant.comp: 64 invocations x 4 floats along a plane, one channel per workgroup row.
    private func recordFakeQuant(_ s: ExecutionPlan.FakeQuant, index: Int) throws {
        precondition(s.input.shape == s.output.shape, "fake_quant: input and output shapes differ")
        let plane = s.output.planeStride, q = s.quantize
        let pipeline = try graphPipeline(.fakeQuant, regions: [s.input, s.output])
        for chunk in try graphChunks(s.output.channels, planes: [plane]) {
            let bound = [alignedBinding(s.input, chunk), alignedBinding(s.output, chunk)]
            let push = words(bound.map(\.base) + [plane]) + [bits(q.scale), bits(Float(q.zeroPoint)), bits(Float(q.low)),
                                                             bits(Float(q.high))]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: push,
                                  groups: (count(plane, 256), chunk.count, 1), label: "step \(index): fake_quant c\(chunk)")
        }
    }

    /// quantized_instance_norm.comp: one workgroup per channel (statistics, then the apply).
    private func recordQuantizedInstanceNorm(_ s: ExecutionPlan.QuantizedInstanceNormStep, index: Int) throws {
        let plane = s.input.planeStride
        precondition(s.output.shape == s.input.shape, "quantized_instance_norm: input and output shapes differ")
        guard s.norm.quantizers.allSatisfy({ $0.low == -128 && $0.high == 127 }) else {
            throw VulkanError.unsupported("quantized_instance_norm: the shader runs int8 quantisers only")
        }
        let largest = min(1024, Int(context.limits.maxComputeWorkGroupSize.0), Int(context.limits.maxComputeWorkGroupInvocations))
        var workgroup = context.info.kind == .cpu ? 8 : 64
        while 2 * workgroup <= largest && count(plane, workgroup) > 16384 { workgroup *= 2 }
        let pipeline = try graphPipeline(.quantizedInstanceNorm, regions: [s.input, s.gamma, s.beta, s.output],
                                         constants: [UInt32(workgroup)])
        let table = s.norm.quantizers.flatMap { [bits($0.scale), bits(Float($0.zeroPoint))] }
        for chunk in try graphChunks(s.input.channels, planes: [plane]) {
            let bound = [alignedBinding(s.input, chunk), alignedBinding(s.gamma, chunk), alignedBinding(s.beta, chunk),
                         alignedBinding(s.output, chunk)]
            let push = words(bound.map(\.base) + [plane, s.norm.relu ? 1 : 0]) + [bits(s.norm.epsilon)] + table
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: push, groups: (chunk.count, 1, 1),
                                  label: "step \(index): quantized_instance_norm c\(chunk)")
        }
    }

    private func recordPad2D(_ s: ExecutionPlan.Pad2D, index: Int) throws {
        let input = s.input, output = s.output, p = s.padding
        precondition(output.shape == .init(channels: input.channels, height: input.height + p.top + p.bottom,
                                           width: input.width + p.left + p.right), "pad2d: the output is the padded input")
        precondition(s.mode == .zero || (max(p.top, p.bottom) < input.height && max(p.left, p.right) < input.width),
                     "pad2d: reflection padding must be smaller than the side")
        let pipeline = try graphPipeline(.pad2d, regions: [input, output])
        for chunk in try graphChunks(output.channels, planes: [input.planeStride, output.planeStride]) {
            let bound = [alignedBinding(input, chunk), alignedBinding(output, chunk)]
            let push = bound.map(\.base) + [input.width, input.height, output.width, output.height, p.top, p.left,
                                            s.mode == .reflect ? 1 : 0]
            try recorder.dispatch(pipeline, buffers: bound.map(\.range), push: words(push),
                                  groups: (count(output.width, 8), count(output.height, 8), chunk.count),
                                  label: "step \(index): pad2d \(s.mode) c\(chunk)")
        }
    }
}
