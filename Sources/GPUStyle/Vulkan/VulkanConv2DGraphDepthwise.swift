import CVulkan

/// Recording of depthwise graph convolutions with conv2d_graph_depthwise.comp.
extension VulkanBackend {
    /// Output tile per invocation: rows x pixels.
    static let depthwiseTile = (rows: 2, pixels: 4)

    func recordConv2DDepthwise(_ conv: ExecutionPlan.Conv2D, layout: VulkanGraphWeights, weights: VulkanBufferRange,
                               extras: VulkanBufferRange, label: String) throws {
        let (py, px) = Self.depthwiseTile
        let runsPerRow = (conv.output.width + px - 1) / px
        let runs = runsPerRow * ((conv.output.height + py - 1) / py)
        let local = graphLocalSize(runs)
        let (vectorInput, vectorOutput) = vectorViews(conv, pixels: px)
        let shader = Self.graphConvShader("conv2d_graph_depthwise", vectorInput: vectorInput, vectorOutput: vectorOutput,
                                          pushConstantWords: 16)
        let pipeline = try pipelines.pipeline(shader, constants: [local, px, py, conv.kernelHeight, conv.kernelWidth,
                                                                  conv.strideY, conv.strideX, vectorInput ? 1 : 0,
                                                                  vectorInput ? 4 - conv.padding.left : 0].map(UInt32.init))
        for (n, piece) in layout.pieces.enumerated() {
            let ints = [conv.input.width, conv.input.height, conv.output.width, conv.output.height, conv.padding.top, conv.padding.left,
                        runsPerRow, conv.output.channels, piece.blocks.lowerBound, Int(conv.activation.kind.rawValue)]
            let push = ints.map { UInt32(bitPattern: Int32($0)) }
                + [conv.activation.alpha.bitPattern, conv.activation.beta.bitPattern] + Self.quantizeWords(conv.quantize)
            try recorder.dispatch(pipeline,
                                  buffers: [binding(conv.input), weights.slice(offset: 4 * piece.offset, size: 4 * piece.floats),
                                            extras, binding(conv.output)],
                                  push: push, groups: ((runs + local - 1) / local, piece.blocks.count, 1),
                                  label: "\(label) piece \(n)")
        }
    }
}
