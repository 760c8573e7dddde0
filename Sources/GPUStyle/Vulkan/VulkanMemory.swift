import CVulkan

extension VulkanContext {
    /// A buffer with its own dedicated memory (the pool and staging use it for whole blocks).
    /// Returns the memory type's property flags so callers know whether it is coherent.
    func makeBuffer(bytes: Int, usage: VkBufferUsageFlags, required: VkMemoryPropertyFlags,
                    preferred: VkMemoryPropertyFlags) throws -> (VkBuffer, VkDeviceMemory, VkMemoryPropertyFlags) {
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(bytes)
        info.usage = usage
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try vkCheck(vk.createBuffer(device, &info, nil, &buffer), "vkCreateBuffer(\(bytes) bytes)")
        guard let buffer else { throw VulkanError.failed(call: "vkCreateBuffer", result: VK_ERROR_UNKNOWN.rawValue) }
        var requirements = VkMemoryRequirements()
        vk.getBufferMemoryRequirements(device, buffer, &requirements)
        guard let type = memoryType(typeBits: requirements.memoryTypeBits, required: required, preferred: preferred) else {
            vk.destroyBuffer(device, buffer, nil)
            throw VulkanError.unsupported("no suitable memory type for a \(bytes)-byte buffer")
        }
        var allocate = VkMemoryAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocate.allocationSize = requirements.size
        allocate.memoryTypeIndex = type
        var memory: VkDeviceMemory?
        do {
            try vkCheck(vk.allocateMemory(device, &allocate, nil, &memory), "vkAllocateMemory(\(requirements.size) bytes)")
            try vkCheck(vk.bindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory")
        } catch {
            if let memory { vk.freeMemory(device, memory, nil) }
            vk.destroyBuffer(device, buffer, nil)
            throw error
        }
        return (buffer, memory!, memoryTypeFlags(type))
    }

    func memoryTypeFlags(_ index: UInt32) -> VkMemoryPropertyFlags {
        var types = memoryProperties.memoryTypes
        return withUnsafeBytes(of: &types) {
            $0.load(fromByteOffset: Int(index) * MemoryLayout<VkMemoryType>.stride, as: VkMemoryType.self).propertyFlags
        }
    }
}
