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
    /// Picks and creates a backend for the model.
    ///
    /// `auto` uses a real GPU (discrete, integrated or virtual) when Vulkan has one. When the only
    /// Vulkan device is a CPU implementation such as lavapipe, it uses the native CPU path:
    /// `gpustyle bench` measures the CPU path several times faster than lavapipe on the same cores
    /// (see README). With no usable Vulkan it falls back to the CPU path with a warning. Under
    /// `auto`, a Vulkan failure during a run re-runs that work on the CPU (see `FallbackBackend`).
    /// `gpu` never falls back: its errors are thrown.
    public static func choose(_ preference: DevicePreference, model: StyleModel, validation: Bool = false) throws -> DeviceChoice {
        try choose(preference, convolutions: model.convolutions, validation: validation)
    }

    /// The same choice for any network: `convolutions` are the style network's layer weights
    /// (none for a lowered `NetworkGraph`, whose plans carry their constants).
    public static func choose(_ preference: DevicePreference, convolutions: [ConvolutionWeights],
                              validation: Bool = false) throws -> DeviceChoice {
        switch preference {
        case .cpu:
            return DeviceChoice(backend: CPUBackend(weights: convolutions), reason: "--device cpu", warnings: [])
        case .gpu(let index):
            let context = try VulkanContext(deviceIndex: index, validation: validation)
            let backend = try VulkanBackend(context: context, weights: convolutions, options: .environment)
            return DeviceChoice(backend: backend, reason: "--device gpu: \(context.info)", warnings: [])
        case .auto:
            let devices: [VulkanDeviceInfo]
            do {
                devices = try VulkanContext.devices()
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
                let context = try VulkanContext(deviceIndex: gpu.index, validation: validation)
                let vulkan = try VulkanBackend(context: context, weights: convolutions, options: .environment)
                return DeviceChoice(backend: FallbackBackend(primary: vulkan, fallback: cpu),
                                    reason: "GPU \(gpu) is available", warnings: [])
            } catch {
                return DeviceChoice(backend: cpu(), reason: "Vulkan device \(gpu.name) failed to start (\(error)); using the CPU path",
                                    warnings: ["warning: Vulkan device \(gpu.name) failed to start (\(error)); using the CPU path"])
            }
        }
    }
}
