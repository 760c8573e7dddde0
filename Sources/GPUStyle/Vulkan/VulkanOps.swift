/// Recording of each plan step as dispatches of its shader. Every op except the convolution's
/// input-channel sum is independent per channel, so a tensor too large for one binding
/// (maxStorageBufferRange, 128 MiB on lavapipe; 1080p 32-channel maps are ~265 MB) is bound
/// and dispatched in chunks of whole channel planes; plane strides are 256-byte multiples, so
/// every chunk offset is a valid storage-buffer and texel-buffer offset.
extension VulkanBackend {
    /// Output pixels per conv invocation: 16 consecutive pixels x 8 output channels measured
    /// best on lavapipe (8x8: 11.6, 16x8: 14.6, 8x16: 12.3 GFLOP/s on a 3x3 32->32 layer).
    static let convPixels = 16
    static let convChannels = 8
    /// Invocations per conv workgroup.
    static let convInvocations = 64

    /// Invocations per norm-statistics workgroup (one channel each) for maps of `count4` vec4s.
    ///
    /// GPUs want many threads per channel. On a CPU implementation each subgroup of a workgroup
    /// is a coroutine and barriers switch between them: one 8-wide subgroup per workgroup made
    /// the step 10x faster on 64x64 maps than 256 invocations. But lavapipe also caps the loop
    /// iterations of one invocation at 65535 (gallivm's loop limiter; the excess is silently
    /// skipped), so big maps get wider workgroups: each invocation here loops twice over
    /// count4 / workgroup vec4s, kept under 16384 for a margin.
    func normStatsWorkgroup(count4: Int) -> Int {
        guard context.info.kind == .cpu else { return 256 }
        var size = 8
        while size < 1024 && 2 * ((count4 + size - 1) / size) > 16384 { size *= 2 }
        return size
    }

    func record(_ step: ExecutionPlan.Step, index: Int, constants: ModelConstants? = nil) throws {
        switch step {
        case .pad(let pad): try recordPad(pad, index: index)
        case .convolution(let conv): try recordConvolution(conv, index: index)
        case .instanceNormStatistics(let stats): try recordNormStatistics(stats, index: index)
        case .instanceNormApply(let apply): try recordNormApply(apply, index: index)
        case .instanceNormMoments(let moments): try recordNormMoments(moments, index: index)
        case .activation, .add, .copy, .channelMultiply, .globalAveragePool, .maxPool, .softmax, .resize, .pad2d, .fakeQuant,
             .quantizedInstanceNorm:
            try recordGraphStep(step, index: index, constants: constants)
        case .conv2d(let conv): try recordConv2D(conv, index: index)
        case .fusedConvolution, .invertedResidual:
            // The parts one by one, each reading what the one before wrote (the CPU backend's
            // fused passes keep the intermediate tensors in cache, or never make them; here they
            // are in the pool), but an inverted residual's add is its projection's epilogue,
            // which then stores the sum only (the block's projection output is read by the add
            // alone, `GraphLowering.invertedResidualChains`); where `fusesDepthwiseProjection`
            // holds, the depthwise, projection and add are one dispatch.
            let parts = step.parts
            var n = 0
            while n < parts.count {
                if n > 0 { recorder.barrier() }
                if case .invertedResidual(let block) = step, case .conv2d(let conv) = parts[n], conv == block.depthwise,
                   fusesDepthwiseProjection(block) {
                    // The depthwise convolution, projection and residual add as one dispatch.
                    try recordDepthwisePointwise(block, index: index)
                    n = parts.count
                } else if case .invertedResidual = step, case .conv2d(let conv) = parts[n], n + 1 < parts.count,
                   let add = fusedAdd(conv, parts[n + 1]) {
                    try recordConv2D(conv, index: index, add: add, keepSum: false)
                    n += 2
                } else {
                    try record(parts[n], index: index, constants: constants)
                    n += 1
                }
            }
        case .transposedConv2d(let conv): try recordTransposedConv2D(conv, index: index)
        }
    }

    /// Consecutive channel ranges whose planes fit one binding for every given plane stride
    /// (in floats); chunk sizes are multiples of `multiple` except the last.
    func channelChunks(_ channels: Int, planeStrides: [Int], multiple: Int = 1) throws -> [Range<Int>] {
        let perBinding = planeStrides.map { maxBindingBytes / (4 * $0) }.min()!
        if perBinding >= channels { return [0..<channels] }
        let size = perBinding / multiple * multiple
        guard size > 0 else {
            throw VulkanError.unsupported("a feature map of \(planeStrides.max()!) floats per channel exceeds the "
                                          + "device's storage buffer range (\(maxBindingBytes) bytes)")
        }
        return stride(from: 0, to: channels, by: size).map { $0..<min(channels, $0 + size) }
    }

    /// The planes `channels` of `buffer` (fp16 buffers have 2-byte elements).
    private func planes(_ buffer: ExecutionPlan.Buffer, _ channels: Range<Int>, planeStride: Int) -> VulkanBufferRange {
        planes(range(buffer), channels, planeStride: planeStride, elementBytes: elementBytes(buffer))
    }

    private func planes(_ range: VulkanBufferRange, _ channels: Range<Int>, planeStride: Int, elementBytes: Int) -> VulkanBufferRange {
        range.slice(offset: elementBytes * channels.lowerBound * planeStride, size: elementBytes * channels.count * planeStride)
    }

    private func groups(_ count: Int, _ size: Int) -> Int { (count + size - 1) / size }

    private func nextPowerOfTwo(_ n: Int) -> Int { n <= 1 ? 1 : 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount) }

    func recordPad(_ pad: ExecutionPlan.Pad, index: Int) throws {
        let source = pad.sourceShape
        let slots = groups(pad.paddedWidth, 4)  // vec4s written per row
        let groupX = min(64, nextPowerOfTwo(slots)), groupY = 64 / groupX
        let shader = VulkanShader.pad.storing(half: [isHalf(pad.source), isHalf(pad.destination)])
        let pipeline = try pipelines.pipeline(shader, constants: [UInt32(groupX), UInt32(groupY)])
        for chunk in try channelChunks(source.channels, planeStrides: [source.planeStride, pad.planeStride]) {
            let rows = pad.window.rows, columns = pad.window.columns
            // Window starts may be negative (reflected rows); they travel as two's complement.
            let push: [Int] = [source.width, source.planeStride,
                               pad.paddedWidth, pad.paddedHeight, pad.rowStride, pad.planeStride,
                               pad.upsample ? 1 : 0, pad.split ? 1 : 0, pad.oddColumnsStart,
                               columns.fullSize, rows.fullSize, columns.start, rows.start, columns.sourceStart, rows.sourceStart]
            try recorder.dispatch(pipeline,
                                  buffers: [planes(pad.source, chunk, planeStride: source.planeStride),
                                            planes(pad.destination, chunk, planeStride: pad.planeStride)],
                                  push: push.map { UInt32(bitPattern: Int32($0)) },
                                  groups: (groups(slots, groupX), groups(pad.paddedHeight, groupY), chunk.count),
                                  label: "step \(index): pad \(pad.source)->\(pad.destination) c\(chunk)")
        }
    }

    /// Splits 0..<count into ranges at most `width` long that never cross a multiple of `boundary`.
    private func splits(_ count: Int, width: Int, boundary: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = min(count, start + width, (start / boundary + 1) * boundary)
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }

    func recordConvolution(_ conv: ExecutionPlan.Convolution, index: Int) throws {
        let layer = weights.layers[conv.layer]
        let input = conv.input, output = conv.outputShape
        precondition(layer.inputChannels == conv.inputChannels && layer.outputChannels == output.channels
                     && layer.kernel == conv.kernel, "convolution \(conv.layer) does not match its weights")
        precondition(input.split == (conv.stride == 2), "conv2d.comp reads split layout exactly for stride 2")
        // Whole aligned vec4 windows run up to ~20 floats past a row's last column (into the
        // slack; those outputs are dropped), so the rows must have that much slack.
        precondition(input.rowStride - input.paddedWidth >= 24, "conv2d.comp needs at least 24 floats of row slack")
        // 8 output channels per invocation, or 4 for narrow layers (expand.1/2) and for maps so
        // large that 8 planes do not fit one binding.
        let outputsPerBinding = maxBindingBytes / (4 * output.planeStride)
        let channelBlock = output.channels <= 4 || outputsPerBinding < Self.convChannels ? 4 : Self.convChannels
        // Also at most 16384 / K input channels per dispatch: lavapipe silently stops a loop after
        // 65535 iterations per invocation (see normStatsWorkgroup), and the shader loops ci x ky.
        let inputsPerBinding = min(maxBindingBytes / (4 * input.planeStride), 16384 / conv.kernel)
        guard inputsPerBinding >= 1, outputsPerBinding >= channelBlock else {
            throw VulkanError.unsupported("layer \(conv.layer)'s feature maps are too large for the device's storage "
                                          + "buffer range (\(maxBindingBytes) bytes)")
        }
        // Chunks fit a binding and never straddle two weight chunks.
        let inputChunks = splits(conv.inputChannels, width: inputsPerBinding, boundary: layer.inputsPerChunk)
        let outputChunks = splits(output.channels, width: outputsPerBinding / channelBlock * channelBlock,
                                  boundary: 4 * layer.groupsPerChunk)
        let px = Self.convPixels
        // 64 invocations; narrow maps get narrower, taller workgroups so SIMD lanes stay busy.
        let blocksPerRow = groups(output.width, px)
        let groupX = min(8, nextPowerOfTwo(blocksPerRow))
        let group = (x: groupX, y: max(1, Self.convInvocations / groupX))
        let oddShift = input.split ? input.oddColumnsStart % 4 : 0
        let shader = VulkanShader.conv2d.storing(half: [isHalf(input.destination), false, isHalf(conv.destination)])
        let pipeline = try pipelines.pipeline(shader, constants: [group.x, group.y, conv.kernel, conv.stride, px, channelBlock,
                                                                   oddShift].map(UInt32.init))
        for (chunkIndex, inputs) in inputChunks.enumerated() {
            // Accumulating chunks read what the previous chunk wrote.
            if chunkIndex > 0 { recorder.barrier() }
            let weightInput = inputs.lowerBound / layer.inputsPerChunk
            for outputs in outputChunks {
                let weightOutput = outputs.lowerBound / (4 * layer.groupsPerChunk)
                let weightChunk = weightRange.slice(offset: layer.chunkOffsets[weightOutput][weightInput],
                                                    size: layer.chunkBytes(outputChunk: weightOutput, inputChunk: weightInput))
                let push: [Int] = [input.rowStride, input.planeStride, input.split ? input.oddColumnsStart : 0,
                                   output.width, output.height, output.planeStride,
                                   inputs.count, min(layer.inputsPerChunk, conv.inputChannels - weightInput * layer.inputsPerChunk),
                                   inputs.lowerBound - weightInput * layer.inputsPerChunk,
                                   (outputs.lowerBound - weightOutput * 4 * layer.groupsPerChunk) / 4,
                                   outputs.count, chunkIndex > 0 ? 1 : 0]
                let inputRange = planes(input.destination, inputs, planeStride: input.planeStride)
                try recorder.dispatch(pipeline,
                                      buffers: [inputRange, weightChunk,
                                                planes(conv.destination, outputs, planeStride: output.planeStride)],
                                      push: push.map(UInt32.init),
                                      groups: (groups(blocksPerRow, group.x), groups(output.height, group.y),
                                               groups(outputs.count, channelBlock)),
                                      label: "step \(index): conv layer \(conv.layer) \(conv.kernel)x\(conv.kernel)/\(conv.stride) "
                                        + "ci\(inputs) co\(outputs)")
            }
        }
    }

    func recordNormStatistics(_ stats: ExecutionPlan.InstanceNormStatistics, index: Int) throws {
        try recordStatisticsShader(source: stats.source, shape: stats.shape, layer: stats.layer, moments: nil, index: index)
    }

    func recordNormMoments(_ moments: ExecutionPlan.InstanceNormMoments, index: Int) throws {
        try recordStatisticsShader(source: moments.source, shape: moments.shape, layer: moments.layer,
                                   moments: moments.destination, index: index)
    }

    /// instance_norm_statistics(_subgroup).comp over `source`: the folded scale/shift of `layer` into the affine table,
    /// or, with a `moments` buffer, [mean, M2] per channel there (tiled execution).
    private func recordStatisticsShader(source: ExecutionPlan.Buffer, shape: ExecutionPlan.DenseShape, layer: Int,
                                        moments: ExecutionPlan.Buffer?, index: Int) throws {
        let workgroup = normStatsWorkgroup(count4: (shape.height * shape.width + 3) / 4)
        let reduction: VulkanShader = context.subgroupArithmetic && usesSubgroups ? .instanceNormStatisticsSubgroup : .instanceNormStatistics
        let shader = reduction.storing(half: [isHalf(source), false, false])
        let pipeline = try pipelines.pipeline(shader, constants: [UInt32(workgroup)])
        for chunk in try channelChunks(shape.channels, planeStrides: [shape.planeStride]) {
            let push = [shape.height * shape.width, shape.planeStride / 4, chunk.lowerBound,
                        moments == nil ? layer * ExecutionPlan.parametersPerLayer : 0, moments == nil ? 0 : 1]
            try recorder.dispatch(pipeline,
                                  buffers: [planes(source, chunk, planeStride: shape.planeStride),
                                            parameterRange, moments.map(range) ?? affineRange],
                                  push: push.map(UInt32.init), groups: (chunk.count, 1, 1),
                                  label: "step \(index): norm \(moments == nil ? "statistics" : "moments") layer \(layer) c\(chunk)"
                                      + (reduction == .instanceNormStatistics ? "" : " subgroupAdd"))
        }
    }

    func recordNormApply(_ apply: ExecutionPlan.InstanceNormApply, index: Int) throws {
        let shape = apply.shape
        // With fp16 storage the plan's last step writes the fp32 output copy instead.
        let redirected = redirectedOutputStep == index
        let residualBuffer = apply.residual ?? apply.source
        let shader = VulkanShader.instanceNormApply.storing(half: [isHalf(apply.source), !redirected && isHalf(apply.destination),
                                                           isHalf(residualBuffer), false])
        let pipeline = try pipelines.pipeline(shader)
        let count4 = groups(shape.height * shape.width, 4)
        for chunk in try channelChunks(shape.channels, planeStrides: [shape.planeStride]) {
            let source = planes(apply.source, chunk, planeStride: shape.planeStride)
            let destination = redirected ? planes(outputRange, chunk, planeStride: shape.planeStride, elementBytes: 4)
                : planes(apply.destination, chunk, planeStride: shape.planeStride)
            // Without a residual the binding still needs a valid buffer; the shader ignores it.
            let residual = apply.residual.map { planes($0, chunk, planeStride: shape.planeStride) } ?? source
            let push = [shape.planeStride / 4, count4, chunk.lowerBound, apply.layer * ExecutionPlan.parametersPerLayer,
                        Int(apply.activation.rawValue), apply.residual == nil ? 0 : 1]
            try recorder.dispatch(pipeline,
                                  buffers: [source, destination,
                                            residual, affineRange],
                                  push: push.map(UInt32.init), groups: (groups(count4, 64), chunk.count, 1),
                                  label: "step \(index): instance_norm apply layer \(apply.layer) c\(chunk)")
        }
    }
}
