extension ExecutionPlan {
    /// The plan with every fused step (a style convolution with its pad and norms, an inverted
    /// residual block) replaced by its parts, one step each: what the Vulkan backend records
    /// for them anyway (parts in order, a barrier between), so its profile can time and name
    /// each convolution (`VulkanBackend.kernelNote`) instead of one "inverted_residual" row.
    public func splittingFusedSteps() -> ExecutionPlan {
        ExecutionPlan(steps: steps.flatMap(\.parts), bufferFloats: bufferFloats, inputShape: inputShape, output: output,
                             outputShape: outputShape, outputFloats: outputFloats, constants: constants)
    }
}
