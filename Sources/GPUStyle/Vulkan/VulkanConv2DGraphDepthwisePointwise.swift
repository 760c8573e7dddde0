import CVulkan

/// Recording of an inverted residual block's depthwise convolution fused into the 1x1
/// projection that reads it (conv2d_graph_dwpw.comp): the depthwise output is never stored.
/// A backend decision over the block's parts (`ExecutionPlan.InvertedResidual`), so the plan
/// stays the one description of the network and the CPU path runs it unchanged.
extension VulkanBackend {
    /// Where blocks run fused (`VulkanBackend.depthwisePointwise`): where it measured faster
    /// (the default), wherever it is correct (tests of the shader on any shape), or never.
    enum DepthwisePointwiseUse { case wherePaying, wherever, never }

    /// Output tile per invocation (rows x pixels; pixels a multiple of 4 for the vec4 views) and
    /// at most how many projection weight blocks (of the layout's 8 channels) one invocation
    /// sums. VulkanConv2DGraphDepthwisePointwiseTimingTests (MobileNetV2's 12 block shapes,
    /// fused against the parts, fastest of 5-9 alternating runs; lavapipe on AMD EPYC Zen 4, 2
    /// shared cores): 2 x 4 pixels x 4 blocks 0.58-1.25x the parts' time, 2 x 4 x 2 blocks
    /// 0.80-1.99x, 1 x 4 x 4 0.82-1.76x, 2 x 4 x 6 0.83-1.28x, 1 x 4 x 8 1.05-2.25x, 1 x 8 x 2
    /// and 4 x 4 x 1 slower in `gpustyle profile` too.
    static let depthwisePointwiseTile = (rows: 2, pixels: 4, blocks: 4)

    /// Where the fusion pays (same timing test, two sittings): when the projection's outputs fit
    /// one invocation's blocks the depthwise is computed once, and on large maps the depthwise
    /// output's stores dominated: 16->96->24 at 112x112 stride 2 0.82-0.94x the parts' time,
    /// 24->144->24 at 56x56 0.58-0.87x, 32->32->16 at 112x112 0.94-1.16x. On smaller maps
    /// (28x28 and below) even one pass of the depthwise measured 0.94-1.47x, and with more
    /// outputs than one invocation's blocks each extra row of blocks recomputes it: 1.02-1.34x
    /// for 64-320 outputs at 7x7-14x14. With 32 outputs (4 blocks, a 256-float register tile)
    /// it lost on large maps too: 24->144->32 at 56x56 stride 2 1.00-1.16x, and `gpustyle
    /// profile --network faces --size 640x480` 32->32->32 at 120x160 12.0 ms against 1.9 + 4.0
    /// for its parts (8->8->16 at 240x320: 7.1 against 4.0 + 4.0).
    static let depthwisePointwiseMaximumOutputs = 3 * 8
    static let depthwisePointwiseMinimumPlane = 56 * 56
    /// With few depthwise channels the fused dispatch has little work per invocation and lost
    /// in a quiet profile (`gpustyle profile --network faces --size 640x480 --device gpu`, AMD
    /// EPYC Zen 4, load ~1): RetinaFace's 8->8->16 at 240x320 5.9-7.0 ms fused against 1.3 + 2.9
    /// for its parts; classify's 32->32->16 at 112x112 had been 0.94-1.16x. The blocks that gain
    /// have 96 and 144 (16->96->24/2, 24->144->24).
    static let depthwisePointwiseMinimumChannels = 64

    /// Whether the block's depthwise convolution and projection (and its residual add) run as
    /// one conv2d_graph_dwpw.comp dispatch: no fake quantisation in them, the uniform-buffer
    /// layouts (the depthwise weights in one piece, the projection's in one input-channel
    /// chunk), and an output that does not overlap the depthwise input (other workgroups still
    /// read it) or partly overlap the add's other operand.
    func fusesDepthwiseProjection(_ block: ExecutionPlan.InvertedResidual) -> Bool {
        let dw = block.depthwise, project = block.project
        let pays = project.output.channels <= Self.depthwisePointwiseMaximumOutputs
            && project.output.height * project.output.width >= Self.depthwisePointwiseMinimumPlane
            && dw.output.channels >= Self.depthwisePointwiseMinimumChannels
        guard depthwisePointwise == .wherever || depthwisePointwise == .wherePaying && pays,
              dw.quantize == nil, project.quantize == nil, block.residual?.quantize == nil,
              let dwLayout = graphWeightsLayout(dw), dwLayout.kind == .depthwise, dwLayout.pieces.count == 1,
              let layout = graphWeightsLayout(project), layout.kind == .pointwise, layout.cinChunks.count == 1 else { return false }
        let output = block.output
        if output.overlaps(dw.input) { return false }
        if let add = block.residual, add.b != output && add.b.overlaps(output) { return false }
        if let add = block.residual, isHalf(add.b.buffer) != isHalf(output.buffer) { return false }
        return true
    }

    /// The fused block less its expansion: depthwise, projection and residual add in one dispatch
    /// per group of projection weight pieces.
    func recordDepthwisePointwise(_ block: ExecutionPlan.InvertedResidual, index: Int) throws {
        let dw = block.depthwise, project = block.project
        guard let dwLayout = graphWeightsLayout(dw), let layout = graphWeightsLayout(project) else {
            preconditionFailure("dwpw: the block's convolutions have no uniform-buffer layouts")
        }
        let (dwWeights, dwExtras) = graphConstantRanges(dw)
        let (weights, extras) = graphConstantRanges(project)
        let (py, px, maxBlocks) = Self.depthwisePointwiseTile
        // As many blocks per invocation as make the fewest workgroup rows, spread evenly.
        let rows = (layout.blocks + maxBlocks - 1) / maxBlocks
        let nb = (layout.blocks + rows - 1) / rows
        let output = block.output
        let addend = block.residual?.b
        let runsPerRow = (output.width + px - 1) / px
        let runs = runsPerRow * ((output.height + py - 1) / py)
        let local = graphLocalSize(runs)
        let vectorInput = vectorViews(dw, pixels: px).input
        let vectorOutput = output.width % 4 == 0 && ([output] + (addend.map { [$0] } ?? [])).allSatisfy { $0.offset % 4 == 0 }
        let r = VK_FORMAT_R32_SFLOAT, rgba = VK_FORMAT_R32G32B32A32_SFLOAT
        let out = vectorOutput ? rgba : r
        let shader = VulkanShader(name: vectorOutput ? "conv2d_graph_dwpw_vec4" : "conv2d_graph_dwpw",
                                  bindings: [.texels(vectorInput ? rgba : r), .uniforms(Self.graphWeightPieces), .texels(r),
                                             .storageTexels(out), .texels(out), .uniform, .texels(r)],
                                  pushConstantWords: 19)
            .storing(half: [isHalf(dw.input.buffer), false, false, isHalf(output.buffer), isHalf((addend ?? output).buffer),
                            false, false])
        let tile = [local, px, py, dw.kernelHeight, dw.kernelWidth, dw.strideY, dw.strideX, vectorInput ? 1 : 0,
                    vectorInput ? 4 - dw.padding.left : 0]
        let constants = graphConvConstants(tile, project, layout: layout, cin: 0..<layout.inputs)
            + [nb, layout.co, Int(dw.activation.kind.rawValue), addend == nil ? 0 : 1].map { UInt32(bitPattern: Int32($0)) }
        let pipeline = try pipelines.pipeline(shader, constants: constants)
        let label = "step \(index): conv2d dwpw \(dw.kernelHeight)x\(dw.kernelWidth)/\(dw.strideY) \(dw.input.shape) -> "
            + "\(project.output.shape)" + (addend == nil ? "" : " + add")
        let dwPiece = dwLayout.pieces[0]
        for (n, group) in layout.dispatchGroups(piecesPerDispatch: Self.graphWeightPieces).enumerated() {
            let blocks = group[0].blocks.lowerBound..<group.last!.blocks.upperBound
            let pieces = (0..<Self.graphWeightPieces).map { group[min($0, group.count - 1)] }
            let ints = [dw.input.width, dw.input.height, output.width, output.height, dw.padding.top, dw.padding.left,
                        runsPerRow, layout.inputs, project.output.channels, blocks.lowerBound, blocks.count]
            try recorder.dispatch(pipeline,
                                  buffers: [binding(dw.input)] + pieces.map { weights.slice(offset: 4 * $0.offset, size: 4 * $0.floats) }
                                      + [extras, binding(output), binding(addend ?? output),
                                         dwWeights.slice(offset: 4 * dwPiece.offset, size: 4 * dwPiece.floats), dwExtras],
                                  push: ints.map { UInt32(bitPattern: Int32($0)) } + graphEpilogueWords(project)
                                      + [dw.activation.alpha.bitPattern, dw.activation.beta.bitPattern],
                                  groups: ((runs + local - 1) / local, (blocks.count + nb - 1) / nb, 1),
                                  label: "\(label) piece \(n)")
        }
    }
}

extension VulkanBackend {
    /// `plan` as this backend records it, for profiles: fused steps split into their parts,
    /// except a block's depthwise convolution, projection and add where they run as one
    /// conv2d_graph_dwpw.comp dispatch (`ExecutionPlan.splittingFusedSteps`).
    public func splittingFusedSteps(_ plan: ExecutionPlan) -> ExecutionPlan {
        plan.splittingFusedSteps(keepsTogether: fusesDepthwiseProjection)
    }
}
