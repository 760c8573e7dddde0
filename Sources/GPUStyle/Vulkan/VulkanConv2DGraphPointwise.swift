import CVulkan

/// Recording of 1x1 graph convolutions with conv2d_graph_pointwise.comp.
extension VulkanBackend {
    /// Output pixels per invocation: two vec4 fetches feed 8 x 8 multiply-adds per input
    /// channel. MobileNetV2's 1x1 layers at 224x224 (VulkanConv2DGraphTimingTests, lavapipe on
    /// AMD EPYC Zen 4, 2 shared cores, one noisy run each): 4 pixels 5.0, 8 pixels 6.5, 16 pixels
    /// 5.1 GFLOP/s (16 output channels per invocation instead of 8: 6.6); 4 pixels on maps under
    /// 400 pixels (more lanes busy on 7x7 and 14x14) lost too: 8.1-10.0 against 10.2-10.8.
    static let pointwisePixels = 8

    func recordConv2DPointwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, label: String) throws {
        let plane = conv.output.height * conv.output.width
        let px = Self.pointwisePixels
        let vectorInput = plane % 4 == 0 && conv.input.offset % 4 == 0
        let vectorOutput = plane % 4 == 0 && conv.output.offset % 4 == 0
        let runs = (plane + px - 1) / px
        let local = graphLocalSize(runs)
        let shader = Self.graphConvShader("conv2d_graph_pointwise", vectorInput: vectorInput, vectorOutput: vectorOutput,
                                          pushConstantWords: 11)
        try dispatchGraphConvPieces(conv, shader: shader, tile: [local, px, layout.co, vectorInput ? 1 : 0], layout: layout,
                                    weights: weights, extras: extras, invocations: runs, local: local, label: label) { piece in
            [plane, conv.output.channels, piece.cin.lowerBound, piece.cin.count, piece.blocks.lowerBound]
        }
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
        guard context.uniformArrayIndexing else {
            throw VulkanError.unsupported("\(context.info.name) lacks shaderUniformBufferArrayDynamicIndexing, which the graph "
                                          + "convolution shaders need")
        }
        let groups = layout.dispatchGroups(piecesPerDispatch: Self.graphWeightPieces)
        for (n, group) in groups.enumerated() {
            if n > 0 && group[0].cin != groups[n - 1][0].cin { recorder.barrier() }
            let covered = VulkanGraphWeights.Piece(cin: group[0].cin, blocks: group[0].blocks.lowerBound..<group.last!.blocks.upperBound,
                                                   offset: group[0].offset, floats: 0)
            let pipeline = try pipelines.pipeline(storing(shader, for: conv),
                                                  constants: graphConvConstants(tile, conv, layout: layout, cin: covered.cin))
            // Unused array entries repeat the last piece (every entry must be valid).
            let pieces = (0..<Self.graphWeightPieces).map { group[min($0, group.count - 1)] }
            try recorder.dispatch(pipeline,
                                  buffers: [binding(conv.input)] + pieces.map { weights.slice(offset: 4 * $0.offset, size: 4 * $0.floats) }
                                      + [extras, binding(conv.output)],
                                  push: push(covered).map { UInt32(bitPattern: Int32($0)) } + graphEpilogueWords(conv),
                                  groups: ((invocations + local - 1) / local, covered.blocks.count, 1),
                                  label: "\(label) piece \(n)")
        }
    }

    /// A uniform-buffer graph convolution shader (bindings: input, weights, extras, output):
    /// with `vectorInput` the input is an RGBA view (the shader's VEC_INPUT), with
    /// `vectorOutput` the "_vec4" build storing 4 floats per store through an RGBA view.
    static func graphConvShader(_ stem: String, vectorInput: Bool, vectorOutput: Bool, pushConstantWords: Int) -> VulkanShader {
        let r = VK_FORMAT_R32_SFLOAT, rgba = VK_FORMAT_R32G32B32A32_SFLOAT
        return VulkanShader(name: vectorOutput ? stem + "_vec4" : stem,
                            bindings: [.texels(vectorInput ? rgba : r), .uniforms(graphWeightPieces), .texels(r),
                                       .storageTexels(vectorOutput ? rgba : r)],
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
