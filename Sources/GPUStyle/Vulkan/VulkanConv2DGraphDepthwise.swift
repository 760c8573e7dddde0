import CVulkan

/// Recording of depthwise graph convolutions with conv2d_graph_depthwise.comp.
extension VulkanBackend {
    /// Output tile per invocation: rows x pixels. MobileNetV2's stride-1 depthwise layers
    /// (VulkanConv2DGraphTimingTests, lavapipe on AMD EPYC Zen 4, 2 shared cores): 1 x 4 2.5,
    /// 2 x 4 4.2, 4 x 4 4.3, 1 x 8 3.9, 2 x 8 4.0 GFLOP/s; the time goes to per-workgroup and
    /// per-output costs, not to the tile's arithmetic. Looping over up to 16 channels per
    /// workgroup on small maps (64 tiles a workgroup) did not help: 3.4 against 4.2 GFLOP/s,
    /// 0.86 against 0.70 ms on 960 channels at 7x7.
    static let depthwiseTile = (rows: 2, pixels: 4)

    func recordConv2DDepthwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, label: String) throws {
        let (py, px) = Self.depthwiseTile
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
