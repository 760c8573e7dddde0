import CVulkan

/// Every failure of the Vulkan backend, with a one-line message fit for a CLI's stderr.
public enum VulkanError: Error, CustomStringConvertible, Equatable {
    /// `dlopen` could not open the loader (no Vulkan installed, or a bad GPUSTYLE_VULKAN_LOADER).
    case loaderMissing(path: String)
    /// The loader lacks an entry point we need (a very old or broken loader or driver).
    case missingFunction(String)
    case noDevice
    case deviceIndexOutOfRange(index: Int, count: Int)
    /// A Vulkan call returned an error code.
    case failed(call: String, result: Int32)
    case outOfMemory(String)
    /// The plan cannot run on this device, e.g. one channel plane is larger than maxStorageBufferRange.
    case unsupported(String)

    public var description: String {
        switch self {
        case .loaderMissing(let path):
            return "Vulkan loader \(path) not found"
        case .missingFunction(let name):
            return "Vulkan loader does not provide \(name)"
        case .noDevice:
            return "no Vulkan device found"
        case .deviceIndexOutOfRange(let index, let count):
            return "Vulkan device index \(index) out of range (\(count) device\(count == 1 ? "" : "s") available)"
        case .failed(let call, let result):
            return "\(call) failed: \(VulkanError.name(of: result))"
        case .outOfMemory(let what):
            return "Vulkan out of memory: \(what)"
        case .unsupported(let what):
            return "Vulkan device cannot run this: \(what)"
        }
    }

    /// True when the device is unusable and the context must be recreated.
    public var isDeviceLost: Bool {
        if case .failed(_, let result) = self { return result == VK_ERROR_DEVICE_LOST.rawValue }
        return false
    }

    static func name(of result: Int32) -> String {
        let names: [Int32: String] = [
            VK_NOT_READY.rawValue: "VK_NOT_READY",
            VK_TIMEOUT.rawValue: "VK_TIMEOUT",
            VK_INCOMPLETE.rawValue: "VK_INCOMPLETE",
            VK_ERROR_OUT_OF_HOST_MEMORY.rawValue: "VK_ERROR_OUT_OF_HOST_MEMORY",
            VK_ERROR_OUT_OF_DEVICE_MEMORY.rawValue: "VK_ERROR_OUT_OF_DEVICE_MEMORY",
            VK_ERROR_INITIALIZATION_FAILED.rawValue: "VK_ERROR_INITIALIZATION_FAILED",
            VK_ERROR_DEVICE_LOST.rawValue: "VK_ERROR_DEVICE_LOST",
            VK_ERROR_MEMORY_MAP_FAILED.rawValue: "VK_ERROR_MEMORY_MAP_FAILED",
            VK_ERROR_LAYER_NOT_PRESENT.rawValue: "VK_ERROR_LAYER_NOT_PRESENT",
            VK_ERROR_EXTENSION_NOT_PRESENT.rawValue: "VK_ERROR_EXTENSION_NOT_PRESENT",
            VK_ERROR_FEATURE_NOT_PRESENT.rawValue: "VK_ERROR_FEATURE_NOT_PRESENT",
            VK_ERROR_INCOMPATIBLE_DRIVER.rawValue: "VK_ERROR_INCOMPATIBLE_DRIVER",
            VK_ERROR_TOO_MANY_OBJECTS.rawValue: "VK_ERROR_TOO_MANY_OBJECTS",
            VK_ERROR_FORMAT_NOT_SUPPORTED.rawValue: "VK_ERROR_FORMAT_NOT_SUPPORTED",
            VK_ERROR_FRAGMENTED_POOL.rawValue: "VK_ERROR_FRAGMENTED_POOL",
            VK_ERROR_OUT_OF_POOL_MEMORY.rawValue: "VK_ERROR_OUT_OF_POOL_MEMORY",
            VK_ERROR_INVALID_EXTERNAL_HANDLE.rawValue: "VK_ERROR_INVALID_EXTERNAL_HANDLE",
            VK_ERROR_FRAGMENTATION.rawValue: "VK_ERROR_FRAGMENTATION",
            VK_ERROR_UNKNOWN.rawValue: "VK_ERROR_UNKNOWN",
        ]
        return names[result] ?? "VkResult \(result)"
    }
}

/// Throws a named `VulkanError` for any result other than VK_SUCCESS; out-of-memory results
/// become `.outOfMemory` so callers can tell "too big" from "broken".
@inline(__always)
func vkCheck(_ result: VkResult, _ call: @autoclosure () -> String) throws {
    guard result != VK_SUCCESS else { return }
    if result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY {
        throw VulkanError.outOfMemory("\(call()) returned \(VulkanError.name(of: result.rawValue))")
    }
    throw VulkanError.failed(call: call(), result: result.rawValue)
}
