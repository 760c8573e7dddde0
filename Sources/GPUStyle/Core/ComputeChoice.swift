/// A compute stage chosen for `ComputeOptions.device` (the network backend, the warp kernel, the
/// colour conversion), with the reason (printed under `--verbose`) and the warnings the user
/// should see even without it.
public struct ComputeChoice<Stage> {
    public let stage: Stage
    /// The Vulkan device the stage runs on; nil on the CPU.
    public let device: VulkanDeviceInfo?
    public let reason: String
    public let warnings: [String]

    public init(stage: Stage, device: VulkanDeviceInfo?, reason: String, warnings: [String] = []) {
        self.stage = stage
        self.device = device
        self.reason = reason
        self.warnings = warnings
    }

    /// The one set of rules for every stage:
    /// - `cpu`: `cpu()`.
    /// - `gpu(index)`: `vulkan` on that Vulkan device (nil: the preferred one); errors are thrown.
    /// - `auto`: a real GPU (discrete, integrated or virtual) when Vulkan has one. Without a GPU
    ///   device node (`GPUDeviceNodes`), `cpu()` at once, Vulkan not loaded. When the only
    ///   Vulkan devices are CPU implementations such as lavapipe, `cpu()`: `gpustyle bench`
    ///   measures the native CPU path several times faster than lavapipe on the same cores (see
    ///   docs/speed.md). With no usable Vulkan, or when the GPU stage fails to start, `cpu()` with a
    ///   warning.
    ///
    /// `vulkan` gets the context and, under `auto` only, the maker of the CPU stage, so that the
    /// stage can switch to it for good when the GPU fails during a run (`DeviceFallback`); under
    /// `gpu` it gets nil and its run-time errors are the caller's.
    /// - Parameter cpuName: how the CPU stage is named in reasons and warnings.
    public static func choose(_ options: ComputeOptions, cpuName: String = "the CPU path",
                              vulkan: (VulkanContext, _ fallback: (() -> Stage)?) throws -> Stage,
                              cpu: @escaping () -> Stage) throws -> ComputeChoice {
        switch options.device {
        case .cpu:
            return ComputeChoice(stage: cpu(), device: nil, reason: "--device cpu")
        case .gpu(let index):
            let context = try VulkanContext(deviceIndex: index, options: options)
            return ComputeChoice(stage: try vulkan(context, nil), device: context.info, reason: "--device gpu: \(context.info)")
        case .auto:
            if options.skipsVulkanWithoutGPUNode, GPUDeviceNodes.present(under: options.deviceDirectory).isEmpty {
                let reason = "no GPU device node in \(options.deviceDirectory) (dri/renderD*, nvidia*, dxg, mali*, kgsl*), "
                    + "so any Vulkan device would be a CPU implementation; using \(cpuName)"
                return ComputeChoice(stage: cpu(), device: nil, reason: reason)
            }
            let devices: [VulkanDeviceInfo]
            do {
                devices = try VulkanContext.devices(options: options)
            } catch {
                let reason = "Vulkan unavailable (\(error)); using \(cpuName)"
                return ComputeChoice(stage: cpu(), device: nil, reason: reason, warnings: ["warning: " + reason])
            }
            guard let gpu = devices.filter({ $0.kind != .cpu && $0.kind != .other })
                .min(by: { $0.kind.preference < $1.kind.preference }) else {
                let names = devices.map(\.name).joined(separator: ", ")
                let reason = devices.isEmpty
                    ? "no Vulkan device; using \(cpuName)"
                    : "the only Vulkan device\(devices.count > 1 ? "s are" : " is") a CPU implementation (\(names)); "
                        + "using \(cpuName), faster on the same cores (gpustyle bench)"
                return ComputeChoice(stage: cpu(), device: nil, reason: reason)
            }
            do {
                let context = try VulkanContext(deviceIndex: gpu.index, options: options)
                return ComputeChoice(stage: try vulkan(context, cpu), device: context.info, reason: "GPU \(gpu) is available")
            } catch {
                let reason = "Vulkan device \(gpu.name) failed to start (\(error)); using \(cpuName)"
                return ComputeChoice(stage: cpu(), device: nil, reason: reason, warnings: ["warning: " + reason])
            }
        }
    }
}
