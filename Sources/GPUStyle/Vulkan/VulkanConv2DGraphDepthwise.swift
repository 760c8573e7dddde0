import CVulkan

/// Recording of depthwise graph convolutions with conv2d_graph_depthwise.comp.
extension VulkanBackend {
    /// Output tile per invocation: rows x pixels. A 4 x 8 tile reads each input row once for
    /// up to 4 output rows (6 row windows per 32 outputs, 4 per 8 with 2 x 4). MobileNetV2's
    /// depthwise layers (VulkanConv2DGraphTimingTests, fastest of 5 per layer, lavapipe on AMD
    /// EPYC Zen 4, 2 shared cores, four interleaved rounds): stride 1 in all 4.2-4.9 GFLOP/s
    /// against 2.2-3.5 with 2 x 4 (8 x 8 3.1, 4 x 16 2.1-3.0, 8 x 4 3.8-3.9), stride 2 3.0-4.7
    /// against 2.5-3.1; 144 channels at 56x56 1.4-1.6 ms against 2.2-4.0. Small maps took a
    /// 2 x 4 tile while each workgroup held one channel (most lanes of a 4 x 8 tile idled on
    /// 7x7); with channels packed into workgroups (`depthwisePacksChannels`) the 4 x 8 tile
    /// is faster there too: 960 channels at 7x7 0.57-0.59 ms against 0.69-0.84 with 2 x 4,
    /// 576 at 14x14 -> 7x7 /2 0.19 against 0.17-0.23 (same runs, two interleaved rounds).
    static let depthwiseTile = (rows: 4, pixels: 8)

    /// Whether a depthwise layer whose channel maps have `runs` tiles each packs several
    /// channels into each workgroup of `depthwisePackedLocalSize` (conv2d_graph_depthwise.glsl's
    /// CHANNEL_RUNS) instead of one channel per workgroup of `graphLocalSize(runs)`. On
    /// MobileNetV2's 14x14 and 7x7 maps a channel is 2-8 runs, so each workgroup was 8
    /// invocations and lavapipe's per-workgroup cost weighed on 49-196 outputs: packed, 960
    /// channels at 7x7 0.84-0.86 ms against 1.09-1.15 and 384 at 14x14 1.18-1.19 against
    /// 1.14-1.52 (VulkanConv2DGraphTimingTests, lavapipe on AMD EPYC Zen 4, 2 shared cores, two
    /// interleaved rounds; the 14x14 layers gain most with `depthwiseStoresPairs` beside it).
    static func depthwisePacksChannels(runs: Int) -> Bool { runs < depthwisePackedLocalSize }
    static let depthwisePackedLocalSize = 64

    /// The tile for a depthwise layer's output map.
    static func depthwiseTile(_ output: ExecutionPlan.Region) -> (rows: Int, pixels: Int) { depthwiseTile }

    /// Whether fp32 outputs of whole vec4 rows go through conv2d_graph_depthwise_u64.comp (each
    /// vec4 stored as two 64-bit words into a storage buffer) where the device has shaderInt64.
    /// Lavapipe runs a storage texel store as one loop over the SIMD lanes per 32-bit word and a
    /// storage-buffer store as one per store, and the stores are ~40 % of a depthwise layer.
    /// VulkanConv2DGraphTimingTests, depthwise GFLOP/s over the 1x1 layers' in the same run (the
    /// control; lavapipe on AMD EPYC Zen 4, 2 shared cores, 12-13 interleaved rounds, medians):
    /// stride 1 0.55 against 0.44 with rgba32f texel stores, stride 2 0.40 against 0.29; vec4
    /// storage-buffer stores 0.47 and 0.31, no gain. `gpustyle profile` (6 rounds): classify's
    /// depthwise 0.58 against 0.43 of its 1x1 kind, faces' 0.62 against 0.40; stride 2 0.37
    /// against 0.30 and 0.29 against 0.25.
    static let depthwiseStoresU64 = true

    /// Whether fp32 outputs whose rows are of an even width (on an even offset) but not whole
    /// vec4s go through conv2d_graph_depthwise_pairs.comp (each pair of a run one 64-bit store
    /// into a storage buffer) where the device has shaderInt64, instead of one R32F texel store
    /// per float: lavapipe runs each as one loop over the SIMD lanes, and a 64-bit store costs
    /// about what a 32-bit one does (VulkanAccessCostTimingTests). With channel packing, 384
    /// channels at 14x14 0.73-0.97 ms against 1.27-1.67 (the old build), 576 at 14x14 0.52-0.69
    /// against 0.93-1.33 (lavapipe on AMD EPYC Zen 4, 2 shared cores, two interleaved rounds).
    static let depthwiseStoresPairs = true

    /// conv2d_graph_depthwise_u64.comp (or another build storing into a storage buffer, `name`):
    /// graphConvShader's bindings with the output a storage buffer.
    static func depthwiseU64Shader(vectorInput: Bool, name: String = "conv2d_graph_depthwise_u64") -> VulkanShader {
        VulkanShader(name: name,
                     bindings: [.texels(vectorInput ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32_SFLOAT),
                                .uniforms(graphWeightPieces), .texels(VK_FORMAT_R32_SFLOAT), .storage],
                     pushConstantWords: 15)
    }

    func recordConv2DDepthwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, label: String) throws {
        let (py, px) = Self.depthwiseTile(conv.output)
        let runsPerRow = (conv.output.width + px - 1) / px
        let runs = runsPerRow * ((conv.output.height + py - 1) / py)
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = vectorViews(conv, pixels: px)
        let u64 = Self.depthwiseStoresU64 && vectorOutput && context.int64 && !isHalf(conv.output.buffer)
        let pairs = !u64 && Self.depthwiseStoresPairs && conv.output.width % 2 == 0 && conv.output.offset % 2 == 0
            && context.int64 && !isHalf(conv.output.buffer)
        let shader = u64 ? Self.depthwiseU64Shader(vectorInput: vectorInput)
            : pairs ? Self.depthwiseU64Shader(vectorInput: vectorInput, name: "conv2d_graph_depthwise_pairs")
            : Self.graphConvShader("conv2d_graph_depthwise", vectorInput: vectorInput, vectorOutput: vectorOutput,
                                   pushConstantWords: 15)
        let tile = [local, px, py, conv.kernelHeight, conv.kernelWidth, conv.strideY, conv.strideX, vectorInput ? 1 : 0,
                    vectorInput ? 4 - conv.padding.left : 0]
        let push = { (piece: VulkanGraphWeights.Piece) in
            [conv.input.width, conv.input.height, conv.output.width, conv.output.height, conv.padding.top, conv.padding.left,
             runsPerRow, conv.output.channels, piece.blocks.lowerBound]
        }
        if Self.depthwisePacksChannels(runs: runs) {
            try recordConv2DDepthwisePacked(conv, shader: storing(shader, for: conv), tile: [Self.depthwisePackedLocalSize] + tile.dropFirst(),
                                            runs: runs, layout: layout, weights: weights, extras: extras, label: label, push: push)
            return
        }
        // Depthwise weights are one input-channel chunk: its pieces split only the channel blocks.
        try dispatchGraphConvPieces(conv, shader: shader, tile: tile, layout: layout, weights: weights, extras: extras,
                                    invocations: runs, local: local, label: label, push: push)
    }

    /// Records a depthwise layer with channels packed along x (CHANNEL_RUNS = `runs`, the tiles
    /// of one channel's map): one dispatch per `graphWeightPieces` weight pieces, workgroup y
    /// the piece, invocation x of it run x % runs of the piece's channel x / runs.
    private func recordConv2DDepthwisePacked(_ conv: ExecutionPlan.Conv2D, shader: VulkanShader, tile: [Int], runs: Int,
                                             layout: VulkanGraphWeights, weights: VulkanBufferRange, extras: VulkanBufferRange,
                                             label: String, push: (VulkanGraphWeights.Piece) -> [Int]) throws {
        let local = tile[0]
        for (n, group) in layout.dispatchGroups(piecesPerDispatch: Self.graphWeightPieces).enumerated() {
            let first = group[0]
            let pipeline = try pipelines.pipeline(shader, constants: graphConvConstants(tile, conv, layout: layout, cin: first.cin)
                                                  + [UInt32(runs)])
            let pieces = (0..<Self.graphWeightPieces).map { group[min($0, group.count - 1)] }
            let widest = group.map(\.blocks.count).max()!
            try recorder.dispatch(pipeline,
                                  buffers: [binding(conv.input)] + pieces.map { weights.slice(offset: 4 * $0.offset, size: 4 * $0.floats) }
                                      + [extras, binding(conv.output)],
                                  push: push(first).map { UInt32(bitPattern: Int32($0)) } + graphEpilogueWords(conv),
                                  groups: ((widest * runs + local - 1) / local, group.count, 1), label: "\(label) piece \(n)")
        }
    }
}
