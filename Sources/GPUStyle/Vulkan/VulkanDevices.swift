import CVulkan

/// What `VulkanContext.devices()` reports about one physical device.
public struct VulkanDeviceInfo: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case discrete, integrated, virtual, cpu, other

        init(_ type: VkPhysicalDeviceType) {
            switch type {
            case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: self = .discrete
            case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: self = .integrated
            case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: self = .virtual
            case VK_PHYSICAL_DEVICE_TYPE_CPU: self = .cpu
            default: self = .other
            }
        }

        /// Automatic selection order: real GPUs first, a CPU rasterizer (llvmpipe) last.
        var preference: Int {
            switch self {
            case .discrete: 0
            case .integrated: 1
            case .virtual: 2
            case .cpu: 3
            case .other: 4
            }
        }
    }

    public let index: Int
    public let name: String
    public let kind: Kind
    /// Vulkan API version the device supports, e.g. "1.3.230".
    public let apiVersion: String
    public let maxStorageBufferRange: Int

    public var description: String { "[\(index)] \(name) (\(kind.rawValue), Vulkan \(apiVersion))" }
}

extension VulkanInstance {
    /// Physical devices in the loader's order, with their properties.
    func physicalDevices() throws -> [(handle: VkPhysicalDevice, properties: VkPhysicalDeviceProperties)] {
        var count: UInt32 = 0
        try vkCheck(vk.enumeratePhysicalDevices(handle, &count, nil), "vkEnumeratePhysicalDevices")
        var handles = [VkPhysicalDevice?](repeating: nil, count: Int(count))
        try vkCheck(vk.enumeratePhysicalDevices(handle, &count, &handles), "vkEnumeratePhysicalDevices")
        return handles.prefix(Int(count)).compactMap { $0 }.map { device in
            var properties = VkPhysicalDeviceProperties()
            vk.getPhysicalDeviceProperties(device, &properties)
            return (device, properties)
        }
    }
}

extension VulkanDeviceInfo {
    init(index: Int, properties p: VkPhysicalDeviceProperties) {
        var copy = p
        let name = withUnsafeBytes(of: &copy.deviceName) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        self.init(index: index, name: name, kind: Kind(p.deviceType),
                  apiVersion: "\(gs_vk_api_version_major(p.apiVersion)).\(gs_vk_api_version_minor(p.apiVersion)).\(gs_vk_api_version_patch(p.apiVersion))",
                  maxStorageBufferRange: Int(p.limits.maxStorageBufferRange))
    }
}
