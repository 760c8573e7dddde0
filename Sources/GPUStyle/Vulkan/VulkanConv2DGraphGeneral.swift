import CVulkan

/// Recording of dense (one group) KH x KW graph convolutions with conv2d_graph_general.comp.
extension VulkanBackend {
    /// Consecutive output pixels of a row per invocation: one vec4 of a row (the vec4 views
    /// need runs of whole vec4s), with 8 output channels 12-13 GFLOP/s on 3x3 layers of 16-64
    /// channels at 160x120 (VulkanConv2DGraphTimingTests; lavapipe, AMD EPYC Zen 4, 2 cores).
    /// The 3-channel first layers keep this shader's rgba32f texel stores: storing their vec4s
    /// as u64vec2 pairs into a storage buffer, which pays for the depthwise layers
    /// (`depthwiseStoresU64`), measured no gain on them (MobileNetV2's 3->32 3x3/2 over the 1x1
    /// layers' GFLOP/s, VulkanConv2DGraphTimingTests: 0.82-1.05 against 0.75-1.22; `profile`
    /// classify 0.89 against 0.72 but faces' 3->8 0.68 against 0.70, medians of 6 interleaved
    /// rounds; lavapipe on AMD EPYC Zen 4, 2 shared cores): with 8 output channels of 27
    /// multiply-adds per stored float their stores weigh a third of a depthwise layer's.
    static let generalPixels = 4

    /// Whether a row-tiled shader (general, depthwise) with `pixels` per run (a multiple of 4)
    /// reads its input rows as vec4s (rows of whole vec4s, the region on a vec4, a left
    /// padding the 4-float lead-in covers) and stores its output rows as vec4s.
    func vectorViews(_ conv: ExecutionPlan.Conv2D, pixels: Int) -> (input: Bool, output: Bool) {
        precondition(pixels % 4 == 0, "vector views need runs of whole vec4s")
        return (conv.input.width % 4 == 0 && conv.input.offset % 4 == 0 && conv.padding.left <= 4,
                conv.output.width % 4 == 0 && conv.output.offset % 4 == 0)
    }

    func recordConv2DGeneral(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                             extras: VulkanBufferRange, label: String) throws {
        let px = Self.generalPixels
        let runsPerRow = (conv.output.width + px - 1) / px
        let runs = runsPerRow * conv.output.height
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = vectorViews(conv, pixels: px)
        let shader = Self.graphConvShader("conv2d_graph_general", vectorInput: vectorInput, vectorOutput: vectorOutput,
                                          pushConstantWords: 17)
        let tile = [local, px, layout.co, conv.kernelHeight, conv.kernelWidth, conv.strideY, conv.strideX, vectorInput ? 1 : 0,
                    vectorInput ? 4 - conv.padding.left : 0]
        try dispatchGraphConvPieces(conv, shader: shader, tile: tile, layout: layout, weights: weights, extras: extras,
                                    invocations: runs, local: local, label: label) { piece in
            [conv.input.width, conv.input.height, conv.output.width, conv.output.height, conv.padding.top, conv.padding.left,
             runsPerRow, conv.output.channels, piece.cin.lowerBound, piece.cin.count, piece.blocks.lowerBound]
        }
    }
}
