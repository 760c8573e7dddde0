extension VulkanBackend {
    /// The shader a convolution step runs with on this backend, for the profile's per-kind
    /// rows: "[pointwise]", "[general]", "[depthwise]" (the graph shaders of
    /// `VulkanConv2DGraph*.swift`), `ProfileReport.winogradMark` (conv2d_graph_winograd.comp), "[conv2d_graph.comp]" (grouped layers and maps under
    /// `minimumUniformWeightsPlane` pixels), "[gemv]" (dense layers on a 1-pixel map,
    /// conv2d_graph_gemv.comp) or "[conv2d.comp]" (the style network); nil for
    /// other steps (Winograd depends on the plan: `allowsWinograd`); "[dwpw]" for a block's
    /// depthwise convolution, projection and add run as one conv2d_graph_dwpw.comp dispatch (its
    /// FLOPs are both convolutions'). Other fused steps get
    /// none: `gpustyle profile` gives this backend their parts (`splittingFusedSteps`), which it
    /// records one by one anyway.
    public func kernelNote(for step: ExecutionPlan.Step, in plan: ExecutionPlan) -> String? {
        switch step {
        case .convolution: return "[conv2d.comp]"
        case .conv2d(let conv):
            guard let layout = Self.graphWeightsLayout(conv, winograd: usesWinograd && Self.allowsWinograd(plan)) else {
                return Self.runsGemv(conv) ? "[gemv]" : "[conv2d_graph.comp]"
            }
            switch layout.kind {
            case .pointwise: return "[pointwise]"
            case .general: return "[general]"
            case .depthwise: return "[depthwise]"
            case .winograd: return ProfileReport.winogradMark
            }
        case .invertedResidual(let block) where block.expand == nil && fusesDepthwiseProjection(block):
            return "[dwpw]"
        default: return nil
        }
    }
}
