import CVulkan

/// Recording of depthwise graph convolutions with conv2d_graph_depthwise.comp.
extension VulkanBackend {
    /// Output tile per invocation: rows x pixels. A 4 x 8 tile reads each input row once for
    /// up to 4 output rows (6 row windows per 32 outputs, 4 per 8 with 2 x 4). MobileNetV2's
    /// depthwise layers (VulkanConv2DGraphTimingTests, fastest of 5 per layer, lavapipe on AMD
    /// EPYC Zen 4, 2 shared cores, four interleaved rounds): stride 1 in all 4.2-4.9 GFLOP/s
    /// against 2.2-3.5 with 2 x 4 (8 x 8 3.1, 4 x 16 2.1-3.0, 8 x 4 3.8-3.9), stride 2 3.0-4.7
    /// against 2.5-3.1; 144 channels at 56x56 1.4-1.6 ms against 2.2-4.0. Each workgroup
    /// holds one channel, so on maps a 4 x 8 tile covers in fewer than 8 runs (lavapipe's SIMD
    /// width) most lanes would idle: 960 channels at 7x7 took 2.0 ms against 1.0-1.5 with 2 x 4.
    static let depthwiseTile = (rows: 4, pixels: 8)
    static let depthwiseSmallMapTile = (rows: 2, pixels: 4)

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

    /// The tile for a depthwise layer's output map.
    static func depthwiseTile(_ output: ExecutionPlan.Region) -> (rows: Int, pixels: Int) {
        let (rows, pixels) = depthwiseTile
        let runs = (output.width + pixels - 1) / pixels * ((output.height + rows - 1) / rows)
        return runs >= 8 ? depthwiseTile : depthwiseSmallMapTile
    }

    /// conv2d_graph_depthwise_u64.comp: graphConvShader's bindings with the output a storage buffer.
    static func depthwiseU64Shader(vectorInput: Bool) -> VulkanShader {
        VulkanShader(name: "conv2d_graph_depthwise_u64",
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
        let shader = u64 ? Self.depthwiseU64Shader(vectorInput: vectorInput)
            : Self.graphConvShader("conv2d_graph_depthwise", vectorInput: vectorInput, vectorOutput: vectorOutput,
                                   pushConstantWords: 15)
        let tile = [local, px, py, conv.kernelHeight, conv.kernelWidth, conv.strideY, conv.strideX, vectorInput ? 1 : 0,
                    vectorInput ? 4 - conv.padding.left : 0]
        // Depthwise weights are one input-channel chunk: its pieces split only the channel blocks.
        try dispatchGraphConvPieces(conv, shader: shader, tile: tile, layout: layout, weights: weights, extras: extras,
                                    invocations: runs, local: local, label: label) { piece in
            [conv.input.width, conv.input.height, conv.output.width, conv.output.height, conv.padding.top, conv.padding.left,
             runsPerRow, conv.output.channels, piece.blocks.lowerBound]
        }
    }
}
