extension ExecutionPlan {
    /// The plan with every fused step (a style convolution with its pad and norms, an inverted
    /// residual block) replaced by its parts, one step each: what the Vulkan backend records
    /// for them anyway (parts in order, a barrier between), so its profile can time and name
    /// each convolution (`VulkanBackend.kernelNote`) instead of one "inverted_residual" row.
    /// A block whose depthwise convolution, projection and add `keepsTogether` (given the block
    /// less its expansion) stays one step after its expansion: the Vulkan backend runs those
    /// as one dispatch (`VulkanBackend.fusesDepthwiseProjection`).
    public func splittingFusedSteps(keepsTogether: (InvertedResidual) -> Bool = { _ in false }) -> ExecutionPlan {
        let split = steps.flatMap { step -> [Step] in
            guard case .invertedResidual(let block) = step else { return step.parts }
            var rest = block
            rest.expand = nil
            guard keepsTogether(rest) else { return step.parts }
            return [block.expand.map(Step.conv2d), .invertedResidual(rest)].compactMap { $0 }
        }
        return ExecutionPlan(steps: split, bufferFloats: bufferFloats, inputShape: inputShape, output: output,
                             outputShape: outputShape, outputFloats: outputFloats, constants: constants)
    }
}
