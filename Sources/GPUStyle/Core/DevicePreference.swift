/// Which path the user asked for (`--device auto|gpu|cpu`, `--gpu-id N`).
public enum DevicePreference: Sendable, Equatable {
    case auto
    case gpu(index: Int?)
    case cpu
}

/// The backend chosen for a run, and why (printed under `--verbose`).
public struct DeviceChoice {
    public let backend: NetworkBackend
    public let reason: String
    /// Warnings the user should see even without `--verbose` (e.g. "Vulkan unavailable").
    public let warnings: [String]
}

public enum DeviceSelector {
    /// Picks and creates a backend for the model by `options.device` with `ComputeChoice`'s rules;
    /// under `auto` a Vulkan backend is wrapped in a `FallbackBackend`, so a Vulkan failure
    /// during a run re-runs that work on the CPU. The Vulkan context and backend get the rest of
    /// `options`.
    public static func choose(_ options: ComputeOptions, model: StyleModel) throws -> DeviceChoice {
        try choose(options, convolutions: model.convolutions)
    }

    /// The same choice for any network: `convolutions` are the style network's layer weights
    /// (none for a lowered `NetworkGraph`, whose plans carry their constants).
    public static func choose(_ options: ComputeOptions, convolutions: [ConvolutionWeights]) throws -> DeviceChoice {
        let choice = try ComputeChoice<NetworkBackend>.choose(options, vulkan: { context, fallback in
            let vulkan = try VulkanBackend(context: context, weights: convolutions, options: VulkanBackend.Options(options))
            return fallback.map { FallbackBackend(primary: vulkan, fallback: $0) } ?? vulkan
        }, cpu: { CPUBackend(weights: convolutions) })
        return DeviceChoice(backend: choice.stage, reason: choice.reason, warnings: choice.warnings)
    }
}
