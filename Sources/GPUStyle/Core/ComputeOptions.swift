/// Everything that decides where and how the library computes. The library reads no environment
/// variables: the caller (the `gpustyle` binary builds one from its flags and `GPUSTYLE_VULKAN_*`
/// variables) passes these down to `ComputeChoice<Stage>.choose` for each stage (the network
/// backend, the edge stage, the warp, the colour conversion), `VulkanContext` and `VulkanBackend`.
public struct ComputeOptions: Sendable, Equatable {
    /// A failure to inject into every Vulkan queue submission (tests of the fallback paths).
    public enum Fault: String, Sendable, Equatable {
        /// Every submit fails with VK_ERROR_DEVICE_LOST without submitting.
        case deviceLost = "device-lost"
        /// The device reports no 16-bit float texel buffer formats (fp16 storage's fallback).
        case noHalfFormats = "no-fp16"
        /// The device reports no shaderInt64 (the graph convolutions' texel-store fallback).
        case noInt64 = "no-int64"
    }

    /// Where to run. Default `.auto`: a real GPU when Vulkan has one, else the CPU path.
    public var device: DevicePreference
    /// VK_LAYER_KHRONOS_validation with a debug messenger. Default off.
    public var validation: Bool
    /// fp16 storage of every network's intermediate tensors on Vulkan (`VulkanBackend.Options.fp16Storage`;
    /// under `auto` fp32 with a warning on a device without it). Default off.
    public var fp16Storage: Bool
    /// The Vulkan loader to `dlopen`. Default `libvulkan.so.1`; a path that does not exist
    /// simulates a machine without Vulkan.
    public var vulkanLoader: String
    /// Injected submit failure. Default nil (none).
    public var fault: Fault?
    /// Under `auto`, take the CPU path without loading Vulkan when `GPUDeviceNodes` finds no
    /// GPU device node. nil (default): on with the default loader, off when a loader is named
    /// (an explicitly named loader is always consulted; tests name one to simulate machines).
    public var skipsVulkanWithoutGPUNodeSetting: Bool?
    public var skipsVulkanWithoutGPUNode: Bool {
        skipsVulkanWithoutGPUNodeSetting ?? (vulkanLoader == ComputeOptions.defaultVulkanLoader)
    }
    /// Where `GPUDeviceNodes` looks. Default `/dev`.
    public var deviceDirectory: String

    public static let defaultVulkanLoader = "libvulkan.so.1"

    public init(device: DevicePreference = .auto, validation: Bool = false, fp16Storage: Bool = false,
                vulkanLoader: String = ComputeOptions.defaultVulkanLoader, fault: Fault? = nil,
                skipsVulkanWithoutGPUNode: Bool? = nil, deviceDirectory: String = "/dev") {
        self.device = device
        self.skipsVulkanWithoutGPUNodeSetting = skipsVulkanWithoutGPUNode
        self.deviceDirectory = deviceDirectory
        self.validation = validation
        self.fp16Storage = fp16Storage
        self.vulkanLoader = vulkanLoader
        self.fault = fault
    }
}
