import CVulkan

/// The instance- and device-level entry points the backend uses, resolved once per instance.
/// (Add a line here when a new call is needed; a missing entry point fails context creation
/// with a clear message instead of crashing later.)
final class VulkanFunctions: @unchecked Sendable {  // immutable after init
    let destroyInstance: PFN_vkDestroyInstance
    let enumeratePhysicalDevices: PFN_vkEnumeratePhysicalDevices
    let getPhysicalDeviceProperties: PFN_vkGetPhysicalDeviceProperties
    let getPhysicalDeviceProperties2: PFN_vkGetPhysicalDeviceProperties2
    let getPhysicalDeviceQueueFamilyProperties: PFN_vkGetPhysicalDeviceQueueFamilyProperties
    let getPhysicalDeviceMemoryProperties: PFN_vkGetPhysicalDeviceMemoryProperties
    let getPhysicalDeviceFormatProperties: PFN_vkGetPhysicalDeviceFormatProperties
    let getPhysicalDeviceFeatures: PFN_vkGetPhysicalDeviceFeatures
    let createDevice: PFN_vkCreateDevice
    let destroyDevice: PFN_vkDestroyDevice
    let getDeviceQueue: PFN_vkGetDeviceQueue
    let deviceWaitIdle: PFN_vkDeviceWaitIdle

    let createBuffer: PFN_vkCreateBuffer
    let destroyBuffer: PFN_vkDestroyBuffer
    let getBufferMemoryRequirements: PFN_vkGetBufferMemoryRequirements
    let allocateMemory: PFN_vkAllocateMemory
    let freeMemory: PFN_vkFreeMemory
    let bindBufferMemory: PFN_vkBindBufferMemory
    let createBufferView: PFN_vkCreateBufferView
    let destroyBufferView: PFN_vkDestroyBufferView
    let mapMemory: PFN_vkMapMemory
    let unmapMemory: PFN_vkUnmapMemory
    let flushMappedMemoryRanges: PFN_vkFlushMappedMemoryRanges
    let invalidateMappedMemoryRanges: PFN_vkInvalidateMappedMemoryRanges

    let createShaderModule: PFN_vkCreateShaderModule
    let destroyShaderModule: PFN_vkDestroyShaderModule
    let createDescriptorSetLayout: PFN_vkCreateDescriptorSetLayout
    let destroyDescriptorSetLayout: PFN_vkDestroyDescriptorSetLayout
    let createPipelineLayout: PFN_vkCreatePipelineLayout
    let destroyPipelineLayout: PFN_vkDestroyPipelineLayout
    let createComputePipelines: PFN_vkCreateComputePipelines
    let destroyPipeline: PFN_vkDestroyPipeline
    let createDescriptorPool: PFN_vkCreateDescriptorPool
    let destroyDescriptorPool: PFN_vkDestroyDescriptorPool
    let resetDescriptorPool: PFN_vkResetDescriptorPool
    let allocateDescriptorSets: PFN_vkAllocateDescriptorSets
    let updateDescriptorSets: PFN_vkUpdateDescriptorSets

    let createCommandPool: PFN_vkCreateCommandPool
    let destroyCommandPool: PFN_vkDestroyCommandPool
    let allocateCommandBuffers: PFN_vkAllocateCommandBuffers
    let resetCommandBuffer: PFN_vkResetCommandBuffer
    let beginCommandBuffer: PFN_vkBeginCommandBuffer
    let endCommandBuffer: PFN_vkEndCommandBuffer
    let cmdBindPipeline: PFN_vkCmdBindPipeline
    let cmdBindDescriptorSets: PFN_vkCmdBindDescriptorSets
    let cmdPushConstants: PFN_vkCmdPushConstants
    let cmdDispatch: PFN_vkCmdDispatch
    let cmdPipelineBarrier: PFN_vkCmdPipelineBarrier
    let cmdCopyBuffer: PFN_vkCmdCopyBuffer
    let cmdWriteTimestamp: PFN_vkCmdWriteTimestamp
    let cmdResetQueryPool: PFN_vkCmdResetQueryPool
    let createQueryPool: PFN_vkCreateQueryPool
    let destroyQueryPool: PFN_vkDestroyQueryPool
    let getQueryPoolResults: PFN_vkGetQueryPoolResults

    let queueSubmit: PFN_vkQueueSubmit
    let createFence: PFN_vkCreateFence
    let destroyFence: PFN_vkDestroyFence
    let resetFences: PFN_vkResetFences
    let waitForFences: PFN_vkWaitForFences

    // VK_EXT_debug_utils: present only when the extension was enabled.
    let createDebugUtilsMessenger: PFN_vkCreateDebugUtilsMessengerEXT?
    let destroyDebugUtilsMessenger: PFN_vkDestroyDebugUtilsMessengerEXT?

    init(loader: VulkanLoader, instance: VkInstance) throws {
        func f<T>(_ name: String) throws -> T { try loader.function(instance, name) }
        destroyInstance = try f("vkDestroyInstance")
        enumeratePhysicalDevices = try f("vkEnumeratePhysicalDevices")
        getPhysicalDeviceProperties = try f("vkGetPhysicalDeviceProperties")
        getPhysicalDeviceProperties2 = try f("vkGetPhysicalDeviceProperties2")
        getPhysicalDeviceQueueFamilyProperties = try f("vkGetPhysicalDeviceQueueFamilyProperties")
        getPhysicalDeviceMemoryProperties = try f("vkGetPhysicalDeviceMemoryProperties")
        getPhysicalDeviceFormatProperties = try f("vkGetPhysicalDeviceFormatProperties")
        getPhysicalDeviceFeatures = try f("vkGetPhysicalDeviceFeatures")
        createDevice = try f("vkCreateDevice")
        destroyDevice = try f("vkDestroyDevice")
        getDeviceQueue = try f("vkGetDeviceQueue")
        deviceWaitIdle = try f("vkDeviceWaitIdle")
        createBuffer = try f("vkCreateBuffer")
        destroyBuffer = try f("vkDestroyBuffer")
        getBufferMemoryRequirements = try f("vkGetBufferMemoryRequirements")
        allocateMemory = try f("vkAllocateMemory")
        freeMemory = try f("vkFreeMemory")
        bindBufferMemory = try f("vkBindBufferMemory")
        createBufferView = try f("vkCreateBufferView")
        destroyBufferView = try f("vkDestroyBufferView")
        mapMemory = try f("vkMapMemory")
        unmapMemory = try f("vkUnmapMemory")
        flushMappedMemoryRanges = try f("vkFlushMappedMemoryRanges")
        invalidateMappedMemoryRanges = try f("vkInvalidateMappedMemoryRanges")
        createShaderModule = try f("vkCreateShaderModule")
        destroyShaderModule = try f("vkDestroyShaderModule")
        createDescriptorSetLayout = try f("vkCreateDescriptorSetLayout")
        destroyDescriptorSetLayout = try f("vkDestroyDescriptorSetLayout")
        createPipelineLayout = try f("vkCreatePipelineLayout")
        destroyPipelineLayout = try f("vkDestroyPipelineLayout")
        createComputePipelines = try f("vkCreateComputePipelines")
        destroyPipeline = try f("vkDestroyPipeline")
        createDescriptorPool = try f("vkCreateDescriptorPool")
        destroyDescriptorPool = try f("vkDestroyDescriptorPool")
        resetDescriptorPool = try f("vkResetDescriptorPool")
        allocateDescriptorSets = try f("vkAllocateDescriptorSets")
        updateDescriptorSets = try f("vkUpdateDescriptorSets")
        createCommandPool = try f("vkCreateCommandPool")
        destroyCommandPool = try f("vkDestroyCommandPool")
        allocateCommandBuffers = try f("vkAllocateCommandBuffers")
        resetCommandBuffer = try f("vkResetCommandBuffer")
        beginCommandBuffer = try f("vkBeginCommandBuffer")
        endCommandBuffer = try f("vkEndCommandBuffer")
        cmdBindPipeline = try f("vkCmdBindPipeline")
        cmdBindDescriptorSets = try f("vkCmdBindDescriptorSets")
        cmdPushConstants = try f("vkCmdPushConstants")
        cmdDispatch = try f("vkCmdDispatch")
        cmdPipelineBarrier = try f("vkCmdPipelineBarrier")
        cmdCopyBuffer = try f("vkCmdCopyBuffer")
        cmdWriteTimestamp = try f("vkCmdWriteTimestamp")
        cmdResetQueryPool = try f("vkCmdResetQueryPool")
        createQueryPool = try f("vkCreateQueryPool")
        destroyQueryPool = try f("vkDestroyQueryPool")
        getQueryPoolResults = try f("vkGetQueryPoolResults")
        queueSubmit = try f("vkQueueSubmit")
        createFence = try f("vkCreateFence")
        destroyFence = try f("vkDestroyFence")
        resetFences = try f("vkResetFences")
        waitForFences = try f("vkWaitForFences")
        createDebugUtilsMessenger = loader.getInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT")
            .map { unsafeBitCast($0, to: PFN_vkCreateDebugUtilsMessengerEXT.self) }
        destroyDebugUtilsMessenger = loader.getInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT")
            .map { unsafeBitCast($0, to: PFN_vkDestroyDebugUtilsMessengerEXT.self) }
    }
}
