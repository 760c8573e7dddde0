extension ComputeChoice where Stage == NetworkBackend {
    /// The backend for a network by `ComputeChoice`'s rules: under `auto` a Vulkan backend in a
    /// `FallbackBackend` (a Vulkan failure during a run re-runs that work on the CPU), under
    /// `gpu` the Vulkan backend alone (its errors are the caller's). The Vulkan context and
    /// backend get the rest of `options`. `convolutions` are the style network's layer weights
    /// (none for a lowered `NetworkGraph`, whose plans carry their constants).
    public static func choose(_ options: ComputeOptions, convolutions: [ConvolutionWeights]) throws
        -> ComputeChoice<NetworkBackend> {
        try choose(options, vulkan: { context, fallback in
            let vulkan = try VulkanBackend(context: context, weights: convolutions, options: VulkanBackend.Options(options))
            return fallback.map { FallbackBackend(primary: vulkan, fallback: $0) } ?? vulkan
        }, cpu: { CPUBackend(weights: convolutions) })
    }

    /// The backend for the style network `model`.
    public static func choose(_ options: ComputeOptions, model: StyleModel) throws -> ComputeChoice<NetworkBackend> {
        try choose(options, convolutions: model.convolutions)
    }
}
