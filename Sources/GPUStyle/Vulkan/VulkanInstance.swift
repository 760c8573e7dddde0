import CVulkan
import Foundation

/// Messages the validation layer reported through the debug-utils messenger. The callback can
/// run on any driver thread, hence the lock.
final class ValidationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func append(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}

/// Runs on whatever thread the layer reports from; records warnings and errors only.
private let debugCallback: PFN_vkDebugUtilsMessengerCallbackEXT = { severity, _, data, user in
    guard let user else { return VkBool32(VK_FALSE) }
    let log = Unmanaged<ValidationLog>.fromOpaque(user).takeUnretainedValue()
    let level = severity.rawValue >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue ? "error" : "warning"
    let text = data?.pointee.pMessage.map { String(cString: $0) } ?? "(no message)"
    log.append("\(level): \(text)")
    return VkBool32(VK_FALSE)  // never abort the call that triggered the message
}

/// A VkInstance with its function table, and with validation a debug messenger feeding a
/// `ValidationLog`.
final class VulkanInstance: @unchecked Sendable {  // handles are immutable after init
    static let validationLayer = "VK_LAYER_KHRONOS_validation"

    let loader: VulkanLoader
    let handle: VkInstance
    let vk: VulkanFunctions
    let log = ValidationLog()
    private var messenger: VkDebugUtilsMessengerEXT?

    init(validation: Bool, loaderPath: String) throws {
        loader = try VulkanLoader.shared(path: loaderPath)
        var layers: [String] = []
        var extensions: [String] = []
        if validation {
            guard try Self.availableLayers(loader).contains(Self.validationLayer) else {
                throw VulkanError.unsupported("validation requested but \(Self.validationLayer) is not installed")
            }
            layers.append(Self.validationLayer)
            extensions.append("VK_EXT_debug_utils")
        }

        var messengerInfo = VkDebugUtilsMessengerCreateInfoEXT()
        messengerInfo.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue
        messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
            | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
        messengerInfo.pfnUserCallback = debugCallback
        messengerInfo.pUserData = Unmanaged.passUnretained(log).toOpaque()

        var instance: VkInstance?
        let loader = self.loader
        try "gpustyle".withCString { appName in
            var app = VkApplicationInfo()
            app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
            app.pApplicationName = appName
            app.pEngineName = appName
            // 1.1: the shaders are SPIR-V 1.3 (subgroups, 16-bit storage later).
            app.apiVersion = gs_vk_make_api_version(0, 1, 1, 0)
            try withCStringArray(layers) { layerNames in
                try withCStringArray(extensions) { extensionNames in
                    try withUnsafePointer(to: &app) { appPointer in
                        try withUnsafePointer(to: &messengerInfo) { messengerPointer in
                            var info = VkInstanceCreateInfo()
                            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
                            // Chained so messages from vkCreateInstance itself are caught too.
                            info.pNext = validation ? UnsafeRawPointer(messengerPointer) : nil
                            info.pApplicationInfo = appPointer
                            info.enabledLayerCount = UInt32(layers.count)
                            info.ppEnabledLayerNames = layerNames
                            info.enabledExtensionCount = UInt32(extensions.count)
                            info.ppEnabledExtensionNames = extensionNames
                            try vkCheck(loader.createInstance(&info, nil, &instance), "vkCreateInstance")
                        }
                    }
                }
            }
        }
        guard let instance else { throw VulkanError.failed(call: "vkCreateInstance", result: VK_ERROR_UNKNOWN.rawValue) }
        handle = instance
        do {
            vk = try VulkanFunctions(loader: loader, instance: instance)
        } catch {
            if let destroy: PFN_vkDestroyInstance = try? loader.function(instance, "vkDestroyInstance") {
                destroy(instance, nil)
            }
            throw error
        }
        if validation, let create = vk.createDebugUtilsMessenger {
            var m: VkDebugUtilsMessengerEXT?
            try vkCheck(create(instance, &messengerInfo, nil, &m), "vkCreateDebugUtilsMessengerEXT")
            messenger = m
        }
    }

    deinit {
        if let messenger, let destroy = vk.destroyDebugUtilsMessenger { destroy(handle, messenger, nil) }
        vk.destroyInstance(handle, nil)
    }

    private static func availableLayers(_ loader: VulkanLoader) throws -> Set<String> {
        var count: UInt32 = 0
        try vkCheck(loader.enumerateInstanceLayerProperties(&count, nil), "vkEnumerateInstanceLayerProperties")
        var properties = [VkLayerProperties](repeating: VkLayerProperties(), count: Int(count))
        try vkCheck(loader.enumerateInstanceLayerProperties(&count, &properties), "vkEnumerateInstanceLayerProperties")
        return Set(properties.prefix(Int(count)).map { p in
            var copy = p
            return withUnsafeBytes(of: &copy.layerName) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        })
    }
}

/// Calls `body` with a C array of C strings that lives for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> R) rethrows -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicates.map { $0.map { UnsafePointer($0) } }
    return try pointers.withUnsafeBufferPointer { try body(strings.isEmpty ? nil : $0.baseAddress) }
}
