extension ComputeChoice where Stage == NetworkBackend {
    /// The backend for a network by `ComputeChoice`'s rules: under `auto` a Vulkan backend in a
    /// `FallbackBackend` (a Vulkan failure during a run re-runs that work on the CPU), under
    /// `gpu` the Vulkan backend alone (its errors are the caller's). The Vulkan context and
    /// backend get the rest of `options`. `convolutions` are the style network's layer weights
    /// (none for a lowered `NetworkGraph`, whose plans carry their constants). fp16 storage on a
    /// device without it: under `auto` fp32 storage and a warning, under `gpu` the backend's error.
    public static func choose(_ options: ComputeOptions, convolutions: [ConvolutionWeights]) throws
        -> ComputeChoice<NetworkBackend> {
        var storageWarnings: [String] = []
        let choice = try choose(options, vulkan: { context, fallback in
            let (backendOptions, warning) = VulkanBackend.options(VulkanBackend.Options(options), for: context,
                                                                  fallbackAllowed: fallback != nil)
            storageWarnings += warning.map { [$0] } ?? []
            let vulkan = try VulkanBackend(context: context, weights: convolutions, options: backendOptions)
            return fallback.map { FallbackBackend(primary: vulkan, fallback: $0) } ?? vulkan
        }, cpu: { CPUBackend(weights: convolutions) })
        return ComputeChoice(stage: choice.stage, device: choice.device, reason: choice.reason,
                             warnings: choice.warnings + (choice.device == nil ? [] : storageWarnings))
    }

    /// The backend for the style network `model`.
    public static func choose(_ options: ComputeOptions, model: StyleModel) throws -> ComputeChoice<NetworkBackend> {
        try choose(options, convolutions: model.convolutions)
    }
}
