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

    /// The tile for a depthwise layer's output map.
    static func depthwiseTile(_ output: ExecutionPlan.Region) -> (rows: Int, pixels: Int) {
        let (rows, pixels) = depthwiseTile
        let runs = (output.width + pixels - 1) / pixels * ((output.height + rows - 1) / rows)
        return runs >= 8 ? depthwiseTile : depthwiseSmallMapTile
    }

    func recordConv2DDepthwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, label: String) throws {
        let (py, px) = Self.depthwiseTile(conv.output)
        let runsPerRow = (conv.output.width + px - 1) / px
        let runs = runsPerRow * ((conv.output.height + py - 1) / py)
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = vectorViews(conv, pixels: px)
        let shader = Self.graphConvShader("conv2d_graph_depthwise", vectorInput: vectorInput, vectorOutput: vectorOutput,
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
