import CVulkan

/// Records one command buffer per run (uploads, every dispatch, the download) and submits it
/// once. Every dispatch goes through `dispatch(_:buffers:push:groups:label:)`, which is where a
/// profiler can bracket dispatches with timestamp queries and keep the labels.
final class VulkanCommandRecorder {
    private let context: VulkanContext
    private let commandPool: VkCommandPool
    let commandBuffer: VkCommandBuffer
    private let fence: VkFence
    /// Descriptor sets come from pools of `setsPerPool`; more pools are added when a big plan
    /// (chunked 1080p layers) needs more sets, and all are reset at the start of each recording.
    private var descriptorPools: [VkDescriptorPool] = []
    private var currentPool = 0
    private static let setsPerPool: UInt32 = 256
    private static let maxBuffersPerSet: UInt32 = 4
    /// Uniform buffers a set may hold (a graph convolution's weight pieces, VulkanBackend.graphWeightPieces).
    private static let maxUniformsPerSet: UInt32 = 8

    /// Texel-buffer views of the current recording (they must outlive its execution).
    private var views: [VkBufferView] = []

    /// Labels of the dispatches recorded so far, in order.
    private(set) var labels: [String] = []

    /// Profiling: timestamp queries around each dispatch while `timestamps.recording` (nil, the
    /// default, records none and costs one nil check per dispatch).
    var timestamps: VulkanTimestamps?

    init(context: VulkanContext) throws {
        self.context = context
        let vk = context.vk, device = context.device
        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue
        poolInfo.queueFamilyIndex = context.queueFamily
        var pool: VkCommandPool?
        try vkCheck(vk.createCommandPool(device, &poolInfo, nil, &pool), "vkCreateCommandPool")
        commandPool = pool!

        var allocate = VkCommandBufferAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        allocate.commandPool = commandPool
        allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        allocate.commandBufferCount = 1
        var buffer: VkCommandBuffer?
        try vkCheck(vk.allocateCommandBuffers(device, &allocate, &buffer), "vkAllocateCommandBuffers")
        commandBuffer = buffer!

        var fenceInfo = VkFenceCreateInfo()
        fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var f: VkFence?
        try vkCheck(vk.createFence(device, &fenceInfo, nil, &f), "vkCreateFence")
        fence = f!
    }

    deinit {
        let vk = context.vk, device = context.device
        context.waitIdle()
        destroyViews()
        for pool in descriptorPools { vk.destroyDescriptorPool(device, pool, nil) }
        vk.destroyFence(device, fence, nil)
        vk.destroyCommandPool(device, commandPool, nil)
    }

    func begin() throws {
        let vk = context.vk
        for pool in descriptorPools {
            try vkCheck(vk.resetDescriptorPool(context.device, pool, 0), "vkResetDescriptorPool")
        }
        currentPool = 0
        destroyViews()  // the previous submission has completed (submitAndWait waited on its fence)
        labels.removeAll(keepingCapacity: true)
        try vkCheck(vk.resetCommandBuffer(commandBuffer, 0), "vkResetCommandBuffer")
        var info = VkCommandBufferBeginInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try vkCheck(vk.beginCommandBuffer(commandBuffer, &info), "vkBeginCommandBuffer")
    }

    /// Ends recording, submits, and waits for completion.
    func submitAndWait() throws {
        try vkCheck(context.vk.endCommandBuffer(commandBuffer), "vkEndCommandBuffer")
        try context.submitAndWait(commandBuffer, fence: fence)
    }

    func copy(from source: VulkanBufferRange, to destination: VulkanBufferRange, bytes: Int) {
        guard bytes > 0 else { return }
        var region = VkBufferCopy(srcOffset: VkDeviceSize(source.offset), dstOffset: VkDeviceSize(destination.offset),
                                  size: VkDeviceSize(bytes))
        context.vk.cmdCopyBuffer(commandBuffer, source.buffer, destination.buffer, 1, &region)
    }

    /// A global memory barrier: everything `before` wrote is visible to `after`. The plan is a
    /// chain of dependent steps, so a global barrier between steps loses no overlap worth having.
    func barrier(sourceStage: VkPipelineStageFlags = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue,
                 sourceAccess: VkAccessFlags = VK_ACCESS_SHADER_WRITE_BIT.rawValue,
                 destinationStage: VkPipelineStageFlags = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue,
                 destinationAccess: VkAccessFlags = VK_ACCESS_SHADER_READ_BIT.rawValue | VK_ACCESS_SHADER_WRITE_BIT.rawValue) {
        var barrier = VkMemoryBarrier()
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
        barrier.srcAccessMask = sourceAccess
        barrier.dstAccessMask = destinationAccess
        context.vk.cmdPipelineBarrier(commandBuffer, sourceStage, destinationStage, 0,
                                      1, &barrier, 0, nil, 0, nil)
    }

    /// Binds `buffers` to bindings 0..<n of a fresh descriptor set (texel bindings get a buffer
    /// view, destroyed at the next `begin`; an array binding takes `count` consecutive buffers),
    /// pushes `push` and dispatches.
    func dispatch(_ pipeline: VulkanPipeline, buffers: [VulkanBufferRange], push: [UInt32],
                  groups: (x: Int, y: Int, z: Int), label: String) throws {
        let kinds = pipeline.shader.bindings
        precondition(buffers.count == kinds.reduce(0) { $0 + $1.count } && push.count == pipeline.shader.pushConstantWords,
                     "\(label): bindings or push constants do not match shader \(pipeline.shader.name)")
        guard groups.x > 0, groups.y > 0, groups.z > 0 else { return }
        let limits = context.limits
        guard groups.x <= Int(limits.maxComputeWorkGroupCount.0), groups.y <= Int(limits.maxComputeWorkGroupCount.1),
              groups.z <= Int(limits.maxComputeWorkGroupCount.2) else {
            throw VulkanError.unsupported("\(label) needs \(groups) workgroups, more than the device allows")
        }
        let vk = context.vk
        var set: VkDescriptorSet? = try allocateSet(pipeline.setLayout)
        var infos: [VkDescriptorBufferInfo] = []
        var texelViews: [VkBufferView?] = []
        var firsts: [Int] = []  // each binding's first entry in infos and texelViews
        for (binding, kind) in kinds.enumerated() {
            firsts.append(infos.count)
            for range in buffers[infos.count..<infos.count + kind.count] {
                infos.append(VkDescriptorBufferInfo(buffer: range.buffer, offset: VkDeviceSize(range.offset), range: VkDeviceSize(range.size)))
                switch kind {
                case .storage:
                    precondition(range.size <= Int(limits.maxStorageBufferRange), "\(label): binding \(binding) exceeds maxStorageBufferRange")
                    texelViews.append(nil)
                case .uniform, .uniforms:
                    precondition(range.size <= Int(limits.maxUniformBufferRange), "\(label): binding \(binding) exceeds maxUniformBufferRange")
                    texelViews.append(nil)
                case .texels(let format), .storageTexels(let format):
                    texelViews.append(try makeView(range, format: format))
                }
            }
        }
        infos.withUnsafeBufferPointer { infoPointer in
            texelViews.withUnsafeBufferPointer { viewPointer in
                var writes = kinds.enumerated().map { i, kind in
                    var write = VkWriteDescriptorSet()
                    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                    write.dstSet = set
                    write.dstBinding = UInt32(i)
                    write.descriptorCount = UInt32(kind.count)
                    write.descriptorType = kind.descriptorType
                    if kind.format != nil {
                        write.pTexelBufferView = viewPointer.baseAddress! + firsts[i]
                    } else {
                        write.pBufferInfo = infoPointer.baseAddress! + firsts[i]
                    }
                    return write
                }
                vk.updateDescriptorSets(context.device, UInt32(writes.count), &writes, 0, nil)
            }
        }
        vk.cmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline)
        vk.cmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &set, 0, nil)
        var words = push
        words.withUnsafeMutableBytes { bytes in
            vk.cmdPushConstants(commandBuffer, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0,
                                UInt32(bytes.count), bytes.baseAddress)
        }
        let timing = timestamps?.recording == true ? timestamps : nil
        let begin = try timing?.write()
        vk.cmdDispatch(commandBuffer, UInt32(groups.x), UInt32(groups.y), UInt32(groups.z))
        if let timing, let begin { try timing.dispatched(label, since: begin) }
        labels.append(label)
    }

    /// Bytes per texel of the formats texel bindings use.
    static func texelBytes(_ format: VkFormat) -> Int {
        switch format {
        case VK_FORMAT_R32G32B32A32_SFLOAT: 16
        case VK_FORMAT_R16G16B16A16_SFLOAT: 8
        case VK_FORMAT_R16_SFLOAT: 2
        case VK_FORMAT_R8_UINT: 1
        default: 4
        }
    }

    private func makeView(_ range: VulkanBufferRange, format: VkFormat) throws -> VkBufferView {
        let texel = Self.texelBytes(format)
        precondition(range.size % texel == 0 && range.size / texel <= Int(context.limits.maxTexelBufferElements),
                     "texel view of \(range.size) bytes is not a whole number of texels or exceeds maxTexelBufferElements")
        var info = VkBufferViewCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO
        info.buffer = range.buffer
        info.format = format
        info.offset = VkDeviceSize(range.offset)
        info.range = VkDeviceSize(range.size)
        var view: VkBufferView?
        try vkCheck(context.vk.createBufferView(context.device, &info, nil, &view), "vkCreateBufferView")
        views.append(view!)
        return view!
    }

    private func destroyViews() {
        for view in views { context.vk.destroyBufferView(context.device, view, nil) }
        views.removeAll(keepingCapacity: true)
    }

    private func allocateSet(_ layout: VkDescriptorSetLayout) throws -> VkDescriptorSet {
        let vk = context.vk
        while true {
            if currentPool == descriptorPools.count { descriptorPools.append(try makeDescriptorPool()) }
            var layoutVar: VkDescriptorSetLayout? = layout
            var set: VkDescriptorSet?
            let result = withUnsafePointer(to: &layoutVar) { layoutPointer in
                var info = VkDescriptorSetAllocateInfo()
                info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
                info.descriptorPool = descriptorPools[currentPool]
                info.descriptorSetCount = 1
                info.pSetLayouts = layoutPointer
                return vk.allocateDescriptorSets(context.device, &info, &set)
            }
            if result == VK_SUCCESS, let set { return set }
            guard result == VK_ERROR_OUT_OF_POOL_MEMORY || result == VK_ERROR_FRAGMENTED_POOL else {
                try vkCheck(result, "vkAllocateDescriptorSets")
                throw VulkanError.failed(call: "vkAllocateDescriptorSets", result: result.rawValue)
            }
            currentPool += 1  // this pool is full: move on to the next (made on demand)
        }
    }

    private func makeDescriptorPool() throws -> VkDescriptorPool {
        let sizes = [VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          descriptorCount: Self.setsPerPool * Self.maxBuffersPerSet),
                     VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, descriptorCount: Self.setsPerPool * Self.maxUniformsPerSet),
                     VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, descriptorCount: 2 * Self.setsPerPool),
                     VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, descriptorCount: Self.setsPerPool)]
        var info = VkDescriptorPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        info.maxSets = Self.setsPerPool
        info.poolSizeCount = UInt32(sizes.count)
        var pool: VkDescriptorPool?
        try sizes.withUnsafeBufferPointer { sizePointer in
            info.pPoolSizes = sizePointer.baseAddress
            try vkCheck(context.vk.createDescriptorPool(context.device, &info, nil, &pool), "vkCreateDescriptorPool")
        }
        return pool!
    }
}
