import CVulkan

/// Recording of 3x3 stride-1 graph convolutions by Winograd's F(2x2, 3x3) with
/// conv2d_graph_winograd.comp, and its weights' transform.
extension VulkanBackend {
    /// Transform-domain positions of F(2x2, 3x3): a 4x4 input tile per 2x2 output tile.
    static let winogradPositions = 16

    /// The register tile: 2x2 tiles side by side per invocation, and output channels. Device
    /// time against the direct shader on the faces network's 3x3 layers (60x80, 30x40 and 15x20
    /// maps, 16-64 channels; VulkanConv2DGraphWinogradTimingTests, alternating rounds, machine
    /// shared, lavapipe on AMD EPYC Zen 4, 2 cores), direct / Winograd summed over the layers:
    /// 2 tiles x 8 channels 1.00-1.18, 4 x 4 1.50-1.75, 4 x 8 1.54, 8 x 4 1.63-1.72 (but 0.33
    /// on 20-wide maps, whose 16-column runs are 3/8 empty). More tiles per weight load pay,
    /// as fewer input rows per pass did not (conv2d_graph_winograd.glsl).
    static let winogradTiles = 4
    static let winogradOutputBlock = 4
    /// Both sides need this many channels (as on the CPU path, GS_WINOGRAD_GRAPH_MIN_CHANNELS):
    /// the input transform is shared by an invocation's output channels only, and 16 -> 16 on
    /// 80x60 and 40x30 measured 1.06-1.28x the direct shader, the 64-channel layers 1.3-2.3x.
    static let winogradMinimumChannels = 16

    /// Runs (invocations: 2 output rows x 2 * winogradTiles columns) a map needs: with fewer
    /// than lavapipe's 8 SIMD lanes the workgroup runs them half empty. The digits model's
    /// 64 -> 128 on 7x7 (4 runs) took 0.95-1.69 ms against 0.84-1.18 direct, its 32 -> 64 on
    /// 14x14 (14 runs) 0.51-0.88 against 0.69-1.06 (`profile --network digits`, alternating,
    /// 3 rounds; lavapipe, AMD EPYC Zen 4, 2 cores, shared).
    static let winogradMinimumRuns = 8

    /// Whether `conv` runs conv2d_graph_winograd.comp: 3x3, stride 1, one group, enough
    /// channels and a map of enough runs.
    static func runsWinograd(_ conv: ExecutionPlan.Conv2D) -> Bool {
        conv.groups == 1 && conv.kernelHeight == 3 && conv.kernelWidth == 3 && conv.strideY == 1 && conv.strideX == 1
            && conv.input.channels >= winogradMinimumChannels && conv.output.channels >= winogradMinimumChannels
            && winogradRuns(conv.output).count >= winogradMinimumRuns
    }

    /// Runs per row and in all for an output region.
    static func winogradRuns(_ output: ExecutionPlan.Region) -> (perRow: Int, count: Int) {
        let px = 2 * winogradTiles, perRow = (output.width + px - 1) / px
        return (perRow, perRow * ((output.height + 1) / 2))
    }

    /// U = G g G^T for every [out][in] 3x3 kernel g, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]:
    /// [out][in][16] floats (row-major 4x4), computed in double and rounded once.
    static func winogradWeights(_ weights: [Float], outputs: Int, inputs: Int) -> [Float] {
        precondition(weights.count == outputs * inputs * 9, "winograd weights: not 3x3")
        let g: [[Double]] = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
        var result = [Float](repeating: 0, count: outputs * inputs * winogradPositions)
        for k in 0..<outputs * inputs {
            let kernel = (0..<9).map { Double(weights[k * 9 + $0]) }
            // t = G g (4x3), then U = t G^T (4x4).
            var t = [Double](repeating: 0, count: 12)
            for i in 0..<4 { for c in 0..<3 { for r in 0..<3 { t[i * 3 + c] += g[i][r] * kernel[r * 3 + c] } } }
            for i in 0..<4 {
                for j in 0..<4 {
                    var u = 0.0
                    for c in 0..<3 { u += t[i * 3 + c] * g[j][c] }
                    result[k * winogradPositions + i * 4 + j] = Float(u)
                }
            }
        }
        return result
    }

    func recordConv2DWinograd(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                              extras: VulkanBufferRange, label: String) throws {
        let tiles = Self.winogradTiles, px = 2 * tiles
        let (runsPerRow, runs) = Self.winogradRuns(conv.output)
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = px % 4 == 0 ? vectorViews(conv, pixels: px) : (false, false)
        let u64 = vectorOutput && Self.winogradStoresU64 && storesU64([conv.output])
        let shader = Self.graphConvShader("conv2d_graph_winograd", vectorInput: vectorInput, vectorOutput: vectorOutput, u64: u64,
                                          pushConstantWords: 17)
        let tile = [local, tiles, layout.co, 0, 0, 0, 0, vectorInput ? 1 : 0,
                    vectorInput ? 4 - conv.padding.left : 0]
        try dispatchGraphConvPieces(conv, shader: shader, tile: tile, layout: layout, weights: weights, extras: extras,
                                    invocations: runs, local: local, label: label + " winograd") { piece in
            [conv.input.width, conv.input.height, conv.output.width, conv.output.height, conv.padding.top, conv.padding.left,
             runsPerRow, conv.output.channels, piece.cin.lowerBound, piece.cin.count, piece.blocks.lowerBound]
        }
    }
}
