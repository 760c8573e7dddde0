import CVulkan
import Foundation

/// Opens the Vulkan loader with `dlopen` so the binary starts (and the CPU backend works) on
/// machines without `libvulkan.so.1`; every entry point is then resolved through
/// `vkGetInstanceProcAddr`.
final class VulkanLoader: @unchecked Sendable {  // immutable after init
    let path: String
    let getInstanceProcAddr: PFN_vkGetInstanceProcAddr
    let createInstance: PFN_vkCreateInstance
    let enumerateInstanceLayerProperties: PFN_vkEnumerateInstanceLayerProperties
    let enumerateInstanceExtensionProperties: PFN_vkEnumerateInstanceExtensionProperties

    private init(path: String, handle: UnsafeMutableRawPointer) throws {
        self.path = path
        guard let symbol = dlsym(handle, "vkGetInstanceProcAddr") else {
            throw VulkanError.missingFunction("vkGetInstanceProcAddr")
        }
        let gipa = unsafeBitCast(symbol, to: PFN_vkGetInstanceProcAddr.self)
        getInstanceProcAddr = gipa
        func global<T>(_ name: String) throws -> T {
            guard let f = gipa(nil, name) else { throw VulkanError.missingFunction(name) }
            return unsafeBitCast(f, to: T.self)
        }
        createInstance = try global("vkCreateInstance")
        enumerateInstanceLayerProperties = try global("vkEnumerateInstanceLayerProperties")
        enumerateInstanceExtensionProperties = try global("vkEnumerateInstanceExtensionProperties")
    }

    /// Resolves an instance- or device-level function (device functions then go through the
    /// loader's dispatch trampoline, which is fine for a compute workload of a few hundred calls).
    func function<T>(_ instance: VkInstance, _ name: String) throws -> T {
        guard let f = getInstanceProcAddr(instance, name) else { throw VulkanError.missingFunction(name) }
        return unsafeBitCast(f, to: T.self)
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: VulkanLoader] = [:]

    /// The loader at `path` (`ComputeOptions.vulkanLoader`; tests point it nowhere to simulate a
    /// machine without Vulkan). Successful opens are cached; failures are not, so a later call
    /// can succeed once the library is installed.
    static func shared(path: String) throws -> VulkanLoader {
        lock.lock()
        defer { lock.unlock() }
        if let loader = loaded[path] { return loader }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { throw VulkanError.loaderMissing(path: path) }
        let loader = try VulkanLoader(path: path, handle: handle)
        loaded[path] = loader
        return loader
    }
}
