import CVulkan

/// Recording of 1x1 graph convolutions with conv2d_graph_pointwise.comp.
extension VulkanBackend {
    /// Output pixels per invocation: two vec4 fetches feed 8 x 8 multiply-adds per input
    /// channel. MobileNetV2's 1x1 layers at 224x224 (VulkanConv2DGraphTimingTests, lavapipe on
    /// AMD EPYC Zen 4, 2 shared cores, one noisy run each): 4 pixels 5.0, 8 pixels 6.5, 16 pixels
    /// 5.1 GFLOP/s (16 output channels per invocation instead of 8: 6.6); 4 pixels on maps under
    /// 400 pixels (more lanes busy on 7x7 and 14x14) lost too: 8.1-10.0 against 10.2-10.8. With
    /// vec4 input fetches on every plane, 16 pixels still cost more lavapipe CPU time per
    /// classify pass: 78-79 against 67-74 ms (2 cores busy, 30 runs each, interleaved).
    static let pointwisePixels = 8

    /// A 1x1 convolution with conv2d_graph_pointwise.comp; with `add` (an add step taking the
    /// convolution's output, `fusedAdd`) the add is its epilogue and writes `add.output`, and
    /// with `keepSum` the convolution's own output is stored too.
    func recordConv2DPointwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, add: ExecutionPlan.Add? = nil, keepSum: Bool = true,
                               label: String) throws {
        let plane = conv.output.height * conv.output.width
        let px = Self.pointwisePixels
        let addend = add.map { $0.a == conv.output ? $0.b : $0.a }
        let destination = add?.output ?? conv.output
        let input = vectorInputBinding(conv.input)
        let vectorOutput = plane % 4 == 0 && ([destination, conv.output] + (addend.map { [$0] } ?? [])).allSatisfy { $0.offset % 4 == 0 }
        let runs = (plane + px - 1) / px
        let local = graphLocalSize(runs)
        let sums = keepSum && add != nil ? conv.output : destination
        let u64 = vectorOutput && Self.pointwiseStoresU64 && storesU64([destination, sums])
        let r = VK_FORMAT_R32_SFLOAT, rgba = VK_FORMAT_R32G32B32A32_SFLOAT
        let out = vectorOutput ? rgba : r
        let stored: VulkanBindingKind = u64 ? .storage : .storageTexels(out)
        let shader = VulkanShader(name: u64 ? "conv2d_graph_pointwise_u64"
                                    : vectorOutput ? "conv2d_graph_pointwise_vec4" : "conv2d_graph_pointwise",
                                  bindings: [.texels(input == nil ? r : rgba), .uniforms(Self.graphWeightPieces), .texels(r),
                                             stored, .texels(out), stored],
                                  pushConstantWords: 11)
            .storing(half: [isHalf(conv.input.buffer), false, false, isHalf(destination.buffer),
                            isHalf((addend ?? destination).buffer), isHalf(destination.buffer)])
        try dispatchGraphConvPieces(conv, shader: shader, layout: layout, weights: weights, extras: extras,
                                    input: input ?? binding(conv.input), output: binding(destination),
                                    more: [binding(addend ?? destination), binding(sums)],
                                    invocations: runs, local: local, label: label,
                                    tile: { cin in
                                        [local, px, layout.co, input == nil ? 0 : 1, plane % 4, cin.lowerBound * plane % 4,
                                         add == nil ? 0 : 1, keepSum && add != nil ? 1 : 0]
                                    }) { piece in
            [plane, conv.output.channels, piece.cin.lowerBound, piece.cin.count, piece.blocks.lowerBound]
        }
    }

    /// `region` as an RGBA view whose last vec4 is whole (conv2d_graph_pointwise's VEC_INPUT),
    /// or nil when it does not start on a vec4 or its buffer ends inside that last vec4.
    private func vectorInputBinding(_ region: ExecutionPlan.Region) -> VulkanBufferRange? {
        guard region.offset % 4 == 0 else { return nil }
        let element = elementBytes(region.buffer)
        let whole = range(region.buffer)
        let bytes = element * roundUp(max(region.floatCount, 1), 4)
        guard element * region.offset + bytes <= whole.size else { return nil }
        return whole.slice(offset: element * region.offset, size: bytes)
    }

    /// The add step that `next` is when it can be the epilogue of the 1x1 convolution `conv`
    /// (conv2d_graph_pointwise.glsl's ADD): `ExecutionPlan.fusableResidualAdd`, with one
    /// input-channel chunk of the weights (later chunks would reload partial sums from the add's
    /// output) and the add's output stored as the convolution's (both fp16 or both fp32).
    func fusedAdd(_ conv: ExecutionPlan.Conv2D, _ next: ExecutionPlan.Step?) -> ExecutionPlan.Add? {
        guard let add = ExecutionPlan.fusableResidualAdd(conv, next), let layout = Self.graphWeightsLayout(conv),
              layout.kind == .pointwise, layout.cinChunks.count == 1,
              isHalf(add.output.buffer) == isHalf(conv.output.buffer) else { return nil }
        return add
    }

    /// Weight pieces bound per dispatch (conv2d_graph_weights.glsl's GRAPH_WEIGHT_PIECES; the
    /// spec lets every device bind 12 uniform buffers per stage). Lavapipe spends ~20 us on any
    /// dispatch (VulkanDispatchFloorTimingTests, AMD EPYC Zen 4), and MobileNetV2's 53
    /// convolutions took 173 dispatches one piece each, 63 with 8.
    static let graphWeightPieces = 8

    /// Records a uniform-buffer graph convolution one dispatch per `graphWeightPieces` pieces
    /// of its weights (a piece fits one 64 KiB uniform binding) of one input-channel chunk,
    /// with a barrier where the chunk changes: the next chunk's dispatches continue the partial
    /// sums the previous one stored. `push` gives the shader's own push words for the
    /// dispatch's pieces (their input channels and blocks); the epilogue's follow them.
    func dispatchGraphConvPieces(_ conv: ExecutionPlan.Conv2D, shader: VulkanShader, tile: [Int], layout: VulkanGraphWeights,
                                 weights: VulkanBufferRange, extras: VulkanBufferRange, invocations: Int, local: Int,
                                 label: String, push: (VulkanGraphWeights.Piece) -> [Int]) throws {
        try dispatchGraphConvPieces(conv, shader: storing(shader, for: conv), layout: layout, weights: weights, extras: extras,
                                    input: binding(conv.input), output: binding(conv.output), more: [],
                                    invocations: invocations, local: local, label: label, tile: { _ in tile }, push: push)
    }

    /// As above with the input and output bindings given, `more` bindings after the output,
    /// the tile constants per input-channel chunk, and `shader` already viewing fp16 buffers
    /// (`VulkanShader.storing(half:)`).
    func dispatchGraphConvPieces(_ conv: ExecutionPlan.Conv2D, shader: VulkanShader, layout: VulkanGraphWeights,
                                 weights: VulkanBufferRange, extras: VulkanBufferRange, input: VulkanBufferRange,
                                 output: VulkanBufferRange, more: [VulkanBufferRange], invocations: Int, local: Int,
                                 label: String, tile: (Range<Int>) -> [Int], push: (VulkanGraphWeights.Piece) -> [Int]) throws {
        guard context.uniformArrayIndexing else {
            throw VulkanError.unsupported("\(context.info.name) lacks shaderUniformBufferArrayDynamicIndexing, which the graph "
                                          + "convolution shaders need")
        }
        let groups = layout.dispatchGroups(piecesPerDispatch: Self.graphWeightPieces)
        for (n, group) in groups.enumerated() {
            if n > 0 && group[0].cin != groups[n - 1][0].cin { recorder.barrier() }
            let covered = VulkanGraphWeights.Piece(cin: group[0].cin, blocks: group[0].blocks.lowerBound..<group.last!.blocks.upperBound,
                                                   offset: group[0].offset, floats: 0)
            let pipeline = try pipelines.pipeline(shader,
                                                  constants: graphConvConstants(tile(covered.cin), conv, layout: layout,
                                                                                cin: covered.cin))
            // Unused array entries repeat the last piece (every entry must be valid).
            let pieces = (0..<Self.graphWeightPieces).map { group[min($0, group.count - 1)] }
            try recorder.dispatch(pipeline,
                                  buffers: [input] + pieces.map { weights.slice(offset: 4 * $0.offset, size: 4 * $0.floats) }
                                      + [extras, output] + more,
                                  push: push(covered).map { UInt32(bitPattern: Int32($0)) } + graphEpilogueWords(conv),
                                  groups: ((invocations + local - 1) / local, covered.blocks.count, 1),
                                  label: "\(label) piece \(n)")
        }
    }

    /// A uniform-buffer graph convolution shader (bindings: input, weights, extras, output):
    /// with `vectorInput` the input is an RGBA view (the shader's VEC_INPUT), with
    /// `vectorOutput` the "_vec4" build storing 4 floats per store through an RGBA view, or
    /// with `u64` too the "_u64" build storing them as 64-bit words into a storage buffer.
    static func graphConvShader(_ stem: String, vectorInput: Bool, vectorOutput: Bool, u64: Bool = false,
                                pushConstantWords: Int) -> VulkanShader {
        let r = VK_FORMAT_R32_SFLOAT, rgba = VK_FORMAT_R32G32B32A32_SFLOAT
        precondition(!u64 || vectorOutput, "\(stem): 64-bit stores need runs of whole vec4s")
        return VulkanShader(name: u64 ? stem + "_u64" : vectorOutput ? stem + "_vec4" : stem,
                            bindings: [.texels(vectorInput ? rgba : r), .uniforms(graphWeightPieces), .texels(r),
                                       u64 ? .storage : .storageTexels(vectorOutput ? rgba : r)],
                            pushConstantWords: pushConstantWords)
    }

    /// Specialization constants of a uniform-buffer graph convolution: the shader's tile
    /// constants (ids 0..<9), conv2d_graph_weights.glsl's blocks per piece (id 9), then
    /// conv2d_graph_epilogue.glsl's (ids 10-13: activation kind, quantise, continue partial
    /// sums, finish) for the input-channel chunk `cin`.
    func graphConvConstants(_ tile: [Int], _ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, cin: Range<Int>) -> [UInt32] {
        precondition(tile.count <= 9, "graph conv tile constants take ids 0..<9")
        let chunks = layout.kind == .depthwise ? [0..<1] : layout.cinChunks
        let epilogue = [Int(conv.activation.kind.rawValue), conv.quantize == nil ? 0 : 1,
                        cin.lowerBound > chunks.first!.lowerBound ? 1 : 0, cin == chunks.last! ? 1 : 0]
        return (tile + [Int](repeating: 0, count: 9 - tile.count) + [layout.blocksPerPiece] + epilogue)
            .map { UInt32(bitPattern: Int32($0)) }
    }

    /// The epilogue's push words: activation alpha and beta, then the fake quantisation's.
    func graphEpilogueWords(_ conv: ExecutionPlan.Conv2D) -> [UInt32] {
        [conv.activation.alpha.bitPattern, conv.activation.beta.bitPattern] + Self.quantizeWords(conv.quantize)
    }

    /// Invocations per workgroup for `runs` invocations along a map: 64, fewer for small maps
    /// (a workgroup of mostly idle lanes still runs them), at least 8 (lavapipe's SIMD width).
    func graphLocalSize(_ runs: Int) -> Int {
        var size = 8
        while size < 64 && size < runs { size *= 2 }
        return size
    }
}
