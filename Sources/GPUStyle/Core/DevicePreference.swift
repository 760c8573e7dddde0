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
    /// Picks and creates a backend for the model by `options.device`; the Vulkan context and
    /// backend get the rest of `options`.
    ///
    /// `auto` uses a real GPU (discrete, integrated or virtual) when Vulkan has one. When the only
    /// Vulkan device is a CPU implementation such as lavapipe, it uses the native CPU path:
    /// `gpustyle bench` measures the CPU path several times faster than lavapipe on the same cores
    /// (see README). With no usable Vulkan it falls back to the CPU path with a warning. Under
    /// `auto`, a Vulkan failure during a run re-runs that work on the CPU (see `FallbackBackend`).
    /// `gpu` never falls back: its errors are thrown.
    public static func choose(_ options: ComputeOptions, model: StyleModel) throws -> DeviceChoice {
        try choose(options, convolutions: model.convolutions)
    }

    /// The same choice for any network: `convolutions` are the style network's layer weights
    /// (none for a lowered `NetworkGraph`, whose plans carry their constants).
    public static func choose(_ options: ComputeOptions, convolutions: [ConvolutionWeights]) throws -> DeviceChoice {
        switch options.device {
        case .cpu:
            return DeviceChoice(backend: CPUBackend(weights: convolutions), reason: "--device cpu", warnings: [])
        case .gpu(let index):
            let context = try VulkanContext(deviceIndex: index, options: options)
            let backend = try VulkanBackend(context: context, weights: convolutions, options: VulkanBackend.Options(options))
            return DeviceChoice(backend: backend, reason: "--device gpu: \(context.info)", warnings: [])
        case .auto:
            let devices: [VulkanDeviceInfo]
            do {
                devices = try VulkanContext.devices(options: options)
            } catch {
                return DeviceChoice(backend: CPUBackend(weights: convolutions),
                                    reason: "Vulkan unavailable (\(error)); using the CPU path",
                                    warnings: ["warning: Vulkan unavailable (\(error)); using the CPU path"])
            }
            guard let gpu = devices.filter({ $0.kind != .cpu && $0.kind != .other })
                .min(by: { $0.kind.preference < $1.kind.preference }) else {
                let names = devices.map(\.name).joined(separator: ", ")
                let reason = devices.isEmpty
                    ? "no Vulkan device; using the CPU path"
                    : "the only Vulkan device\(devices.count > 1 ? "s are" : " is") a CPU implementation (\(names)); "
                        + "the native CPU path is faster on the same cores (gpustyle bench), so using it"
                return DeviceChoice(backend: CPUBackend(weights: convolutions), reason: reason, warnings: [])
            }
            let cpu = { CPUBackend(weights: convolutions) as NetworkBackend }
            do {
                let context = try VulkanContext(deviceIndex: gpu.index, options: options)
                let vulkan = try VulkanBackend(context: context, weights: convolutions, options: VulkanBackend.Options(options))
                return DeviceChoice(backend: FallbackBackend(primary: vulkan, fallback: cpu),
                                    reason: "GPU \(gpu) is available", warnings: [])
            } catch {
                return DeviceChoice(backend: cpu(), reason: "Vulkan device \(gpu.name) failed to start (\(error)); using the CPU path",
                                    warnings: ["warning: Vulkan device \(gpu.name) failed to start (\(error)); using the CPU path"])
            }
        }
    }
}
