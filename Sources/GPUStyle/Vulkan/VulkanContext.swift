import CVulkan
import Foundation

/// One Vulkan instance, device and compute queue. Create it once per process and share it
/// between backends; pipelines and memory hang off it.
public final class VulkanContext: @unchecked Sendable {  // queue access is serialised by `submitLock`
    /// Every physical device, in the loader's order (`VulkanContext(deviceIndex:)` indexes this).
    /// Only `options.vulkanLoader` matters here.
    public static func devices(options: ComputeOptions = ComputeOptions()) throws -> [VulkanDeviceInfo] {
        let instance = try VulkanInstance(validation: false, loaderPath: options.vulkanLoader)
        return try instance.physicalDevices().enumerated().map { VulkanDeviceInfo(index: $0, properties: $1.properties) }
    }

    public let info: VulkanDeviceInfo
    public let validationEnabled: Bool
    let instance: VulkanInstance
    let vk: VulkanFunctions
    let physicalDevice: VkPhysicalDevice
    let device: VkDevice
    let queue: VkQueue
    let queueFamily: UInt32
    let limits: VkPhysicalDeviceLimits
    /// Whether compute shaders may use subgroup arithmetic (subgroupAdd and the like): the
    /// device's VkPhysicalDeviceSubgroupProperties list the compute stage and the basic and
    /// arithmetic operations (Vulkan 1.1 guarantees only basic ones, and only in compute).
    /// Shaders that need it have a fallback without subgroups (`VulkanShader.globalAveragePool`).
    let subgroupArithmetic: Bool
    /// Whether shaders may index an array of uniform buffers by a dynamically uniform value
    /// (shaderUniformBufferArrayDynamicIndexing, enabled when the device has it): the graph
    /// convolutions bind several weight pieces per dispatch that way.
    let uniformArrayIndexing: Bool
    /// Whether shaders may use 64-bit integers (shaderInt64, enabled when the device has it):
    /// the graph convolutions store their outputs as pairs of floats packed into 64-bit words
    /// where they may (`VulkanBackend.depthwiseStoresU64`, `VulkanBackend.storesU64`). False
    /// under `ComputeOptions.Fault.noInt64` (tests of the fallback).
    let int64: Bool

    /// Largest byte range one tensor binding may cover: tensors are read through texel buffers
    /// of 32-bit elements and written through storage buffers, so both limits apply.
    var maxBindingBytes: Int {
        min(Int(limits.maxStorageBufferRange), 4 * Int(limits.maxTexelBufferElements))
    }
    let memoryProperties: VkPhysicalDeviceMemoryProperties
    private let submitLock = NSLock()

    /// Size of the largest device-local memory heap (lavapipe: one 2 GiB heap).
    var largestDeviceHeapBytes: Int {
        var heaps = memoryProperties.memoryHeaps
        return withUnsafeBytes(of: &heaps) { raw in
            raw.bindMemory(to: VkMemoryHeap.self).prefix(Int(memoryProperties.memoryHeapCount))
                .filter { $0.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT.rawValue != 0 }
                .map { Int($0.size) }.max() ?? 0
        }
    }

    /// Warnings and errors reported by the validation layer so far (empty without validation).
    public var validationErrors: [String] { instance.log.all }

    /// The default options with `validation` (VK_LAYER_KHRONOS_validation with a debug messenger).
    public convenience init(deviceIndex: Int? = nil, validation: Bool = false) throws {
        try self.init(deviceIndex: deviceIndex, options: ComputeOptions(validation: validation))
    }

    /// - Parameters:
    ///   - deviceIndex: index into `devices()`; nil picks discrete > integrated > virtual > cpu.
    ///     (`options.device` is `ComputeChoice`'s business, not the context's.)
    ///   - options: `validation`, `vulkanLoader` and `fault` apply.
    public init(deviceIndex: Int? = nil, options: ComputeOptions) throws {
        let validation = options.validation
        validationEnabled = validation
        injectedFault = options.fault
        hidesHalfFormats = options.fault == .noHalfFormats
        instance = try VulkanInstance(validation: validation, loaderPath: options.vulkanLoader)
        vk = instance.vk
        let candidates = try instance.physicalDevices()
        guard !candidates.isEmpty else { throw VulkanError.noDevice }
        let index: Int
        if let deviceIndex {
            guard candidates.indices.contains(deviceIndex) else {
                throw VulkanError.deviceIndexOutOfRange(index: deviceIndex, count: candidates.count)
            }
            index = deviceIndex
        } else {
            // min(by:) keeps the first of equals, so the loader's order breaks ties.
            index = candidates.indices.min { VulkanDeviceInfo.Kind(candidates[$0].properties.deviceType).preference
                < VulkanDeviceInfo.Kind(candidates[$1].properties.deviceType).preference }!
        }
        let chosen = candidates[index]
        info = VulkanDeviceInfo(index: index, properties: chosen.properties)
        guard chosen.properties.apiVersion >= gs_vk_make_api_version(0, 1, 1, 0) else {
            throw VulkanError.unsupported("\(info.name) supports only Vulkan \(info.apiVersion); 1.1 is required")
        }
        physicalDevice = chosen.handle
        limits = chosen.properties.limits
        subgroupArithmetic = Self.hasSubgroupArithmetic(vk, chosen.handle)

        var familyCount: UInt32 = 0
        vk.getPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, nil)
        var families = [VkQueueFamilyProperties](repeating: VkQueueFamilyProperties(), count: Int(familyCount))
        vk.getPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, &families)
        let computeBit = VK_QUEUE_COMPUTE_BIT.rawValue
        // Prefer a compute-only family (async compute on GPUs), else any family with compute.
        guard let family = families.indices.first(where: { families[$0].queueFlags & computeBit != 0
                                                            && families[$0].queueFlags & VK_QUEUE_GRAPHICS_BIT.rawValue == 0 })
                ?? families.indices.first(where: { families[$0].queueFlags & computeBit != 0 }) else {
            throw VulkanError.unsupported("\(info.name) has no compute queue")
        }
        queueFamily = UInt32(family)

        var memory = VkPhysicalDeviceMemoryProperties()
        vk.getPhysicalDeviceMemoryProperties(physicalDevice, &memory)
        memoryProperties = memory

        var supported = VkPhysicalDeviceFeatures()
        vk.getPhysicalDeviceFeatures(physicalDevice, &supported)
        uniformArrayIndexing = supported.shaderUniformBufferArrayDynamicIndexing != 0
        var features = VkPhysicalDeviceFeatures()
        features.shaderUniformBufferArrayDynamicIndexing = supported.shaderUniformBufferArrayDynamicIndexing
        int64 = supported.shaderInt64 != 0 && options.fault != .noInt64
        features.shaderInt64 = int64 ? supported.shaderInt64 : 0

        var priority: Float = 1
        var device: VkDevice?
        let createDevice = vk.createDevice
        try withUnsafePointer(to: &priority) { priorityPointer in
            var queueInfo = VkDeviceQueueCreateInfo()
            queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
            queueInfo.queueFamilyIndex = UInt32(family)
            queueInfo.queueCount = 1
            queueInfo.pQueuePriorities = priorityPointer
            try withUnsafePointer(to: &queueInfo) { queuePointer in
                var deviceInfo = VkDeviceCreateInfo()
                deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                deviceInfo.queueCreateInfoCount = 1
                deviceInfo.pQueueCreateInfos = queuePointer
                try withUnsafePointer(to: &features) { featuresPointer in
                    deviceInfo.pEnabledFeatures = featuresPointer
                    try vkCheck(createDevice(chosen.handle, &deviceInfo, nil, &device), "vkCreateDevice")
                }
            }
        }
        guard let device else { throw VulkanError.failed(call: "vkCreateDevice", result: VK_ERROR_UNKNOWN.rawValue) }
        self.device = device
        var queue: VkQueue?
        vk.getDeviceQueue(device, UInt32(family), 0, &queue)
        self.queue = queue!
    }

    deinit {
        _ = vk.deviceWaitIdle(device)
        vk.destroyDevice(device, nil)
    }

    /// Test hook (`ComputeOptions.fault`): `.deviceLost` makes every queue submission fail with
    /// VK_ERROR_DEVICE_LOST (without submitting), so tests can check that the error surfaces.
    /// Guarded by `submitLock`; tests switch it on and off on a live context with `setFault`.
    private var injectedFault: ComputeOptions.Fault?

    /// Test hook (`ComputeOptions.Fault.noHalfFormats`): the 16-bit float texel formats read as
    /// unsupported, so the fp16 storage fallback can be tested on a device that has them.
    let hidesHalfFormats: Bool

    /// The device-feature check behind `subgroupArithmetic`.
    private static func hasSubgroupArithmetic(_ vk: VulkanFunctions, _ device: VkPhysicalDevice) -> Bool {
        var subgroup = VkPhysicalDeviceSubgroupProperties()
        subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES
        var properties = VkPhysicalDeviceProperties2()
        properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        withUnsafeMutablePointer(to: &subgroup) { chained in
            properties.pNext = UnsafeMutableRawPointer(chained)
            vk.getPhysicalDeviceProperties2(device, &properties)
        }
        let operations = VK_SUBGROUP_FEATURE_BASIC_BIT.rawValue | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT.rawValue
        return subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT.rawValue != 0
            && subgroup.supportedOperations & operations == operations
    }

    func setFault(_ fault: ComputeOptions.Fault?) {
        submitLock.lock()
        injectedFault = fault
        submitLock.unlock()
    }

    /// Waits until the device is idle. vkDeviceWaitIdle uses every queue, which must not be in
    /// use on another thread at the same time: it takes the submission lock (two backends
    /// released on two threads at once, the live faces' detector stage ending while the frame
    /// loop releases the mesh's backend, made the validation layer report a threading error).
    func waitIdle() {
        submitLock.lock()
        defer { submitLock.unlock() }
        _ = vk.deviceWaitIdle(device)
    }

    /// Submits one command buffer and waits for it on `fence` (which is reset first). Only the
    /// submission holds the queue's lock: command buffers submitted from several threads (the
    /// lanes of `ImageAnalyzer`, the live stages) are queued together and each thread waits for
    /// its own fence.
    func submitAndWait(_ commandBuffer: VkCommandBuffer, fence: VkFence) throws {
        var fenceVar: VkFence? = fence
        try vkCheck(vk.resetFences(device, 1, &fenceVar), "vkResetFences")
        try submitLock.withLock {
            if injectedFault == .deviceLost { try vkCheck(VK_ERROR_DEVICE_LOST, "vkQueueSubmit") }
            var buffer: VkCommandBuffer? = commandBuffer
            try withUnsafePointer(to: &buffer) { buffers in
                var submit = VkSubmitInfo()
                submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
                submit.commandBufferCount = 1
                submit.pCommandBuffers = buffers
                try vkCheck(vk.queueSubmit(queue, 1, &submit, fence), "vkQueueSubmit")
            }
        }
        try vkCheck(vk.waitForFences(device, 1, &fenceVar, VkBool32(VK_TRUE), UInt64.max), "vkWaitForFences")
    }

    /// Index of a memory type allowed by `typeBits` with all of `required`, preferring ones that
    /// also have `preferred`.
    func memoryType(typeBits: UInt32, required: VkMemoryPropertyFlags, preferred: VkMemoryPropertyFlags = 0) -> UInt32? {
        let allowed = (0..<memoryProperties.memoryTypeCount).filter {
            typeBits & (1 << $0) != 0 && memoryTypeFlags($0) & required == required
        }
        return allowed.first { memoryTypeFlags($0) & preferred == preferred } ?? allowed.first
    }
}
