import CVulkan

/// Recording of dense (one group) KH x KW graph convolutions with conv2d_graph_general.comp.
extension VulkanBackend {
    /// Consecutive output pixels of a row per invocation: one vec4 of a row (the vec4 views
    /// need runs of whole vec4s), with 8 output channels 12-13 GFLOP/s on 3x3 layers of 16-64
    /// channels at 160x120 (VulkanConv2DGraphTimingTests; lavapipe, AMD EPYC Zen 4, 2 cores).
    static let generalPixels = 4

    /// The first layers of images (3 input channels, 27 multiply-adds per output of a 3x3):
    /// 8 pixels per invocation, two vec4s of a row, and their vec4s stored as 64-bit words
    /// (VulkanConv2DGraphStores.swift; the general layers with more inputs keep texel stores).
    /// Device time of MobileNetV2's 3 -> 32 3x3/2 at 224x224 and a 3 -> 8 3x3/2 at 640x480
    /// together, 4 pixels over 8 (VulkanConv2DGraphStoresTimingTests' layers, alternating
    /// rounds in one process, lavapipe on AMD EPYC Zen 4, 2 cores shared at load 5-6): medians
    /// 1.30, 1.35, 1.36 and once 0.94 in four runs of 7-25 rounds, fastest rounds 3.58 against
    /// 2.72 ms; 16 output channels per invocation instead of 8 measured 0.98-1.19 alone and
    /// 0.92-1.42 with 8 pixels, no clear gain, so the weight layout keeps 8. Their 64-bit stores
    /// measured 1.07-1.12 here with 4 pixels; in the previous session, against the 1x1 layers in
    /// separate runs, no gain (MobileNetV2's 3->32 0.82-1.05 against 0.75-1.22 of the 1x1 GFLOP/s).
    static let stemPixels = 8
    static let stemMaximumInputs = 4

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
        let stem = conv.input.channels <= Self.stemMaximumInputs
        let px = stem ? Self.stemPixels : Self.generalPixels
        let runsPerRow = (conv.output.width + px - 1) / px
        let runs = runsPerRow * conv.output.height
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = vectorViews(conv, pixels: px)
        let u64 = vectorOutput && stem && storesU64([conv.output])
        let shader = Self.graphConvShader("conv2d_graph_general", vectorInput: vectorInput, vectorOutput: vectorOutput, u64: u64,
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
