import CVulkan

/// A byte range of a pooled storage buffer, the unit descriptors bind.
struct VulkanBufferRange {
    let buffer: VkBuffer
    let offset: Int
    let size: Int

    /// A sub-range, e.g. a chunk of channel planes.
    func slice(offset extra: Int, size: Int) -> VulkanBufferRange {
        precondition(extra >= 0 && extra + size <= self.size, "slice outside its allocation")
        return VulkanBufferRange(buffer: buffer, offset: offset + extra, size: size)
    }
}

/// Device-local storage memory suballocated from a few large blocks (ncnn style): creating
/// and freeing VkDeviceMemory per tensor per frame is slow and fragments the heap. Each block
/// has one VkBuffer spanning it; allocations are aligned ranges of that buffer, first fit,
/// merged on free. Blocks are kept for reuse until `trim()` releases the empty ones.
final class VulkanBufferPool {
    /// Allocation granularity: 256 bytes is the largest min{Storage,Uniform}BufferOffsetAlignment
    /// Vulkan allows, and plan channel planes are 256-byte multiples, so every chunk binding is aligned.
    let alignment: Int
    static let blockSize = 64 << 20

    private final class Block {
        let memory: VkDeviceMemory
        let buffer: VkBuffer
        let size: Int
        var free: [(offset: Int, size: Int)]  // sorted by offset, never adjacent
        init(memory: VkDeviceMemory, buffer: VkBuffer, size: Int) {
            self.memory = memory
            self.buffer = buffer
            self.size = size
            free = [(0, size)]
        }
        var isEmpty: Bool { free.count == 1 && free[0].size == size }
    }

    struct Allocation {
        let range: VulkanBufferRange
        fileprivate let block: ObjectIdentifier
    }

    private let context: VulkanContext
    private var blocks: [Block] = []

    init(context: VulkanContext) {
        self.context = context
        alignment = max(256, Int(context.limits.minStorageBufferOffsetAlignment), Int(context.limits.minUniformBufferOffsetAlignment),
                        Int(context.limits.minTexelBufferOffsetAlignment))
    }

    deinit {
        for block in blocks { destroy(block) }
    }

    /// Bytes of device memory the pool holds.
    var reservedBytes: Int { blocks.reduce(0) { $0 + $1.size } }

    func allocate(bytes: Int) throws -> Allocation {
        let size = roundUp(max(bytes, 1), alignment)
        for block in blocks {
            if let offset = take(size, from: block) { return allocation(block, offset, size) }
        }
        let block = try makeBlock(size: max(Self.blockSize, size))
        blocks.append(block)
        return allocation(block, take(size, from: block)!, size)
    }

    func free(_ allocation: Allocation) {
        guard let block = blocks.first(where: { ObjectIdentifier($0) == allocation.block }) else { return }
        var free = block.free
        free.append((allocation.range.offset, roundUp(allocation.range.size, alignment)))
        free.sort { $0.offset < $1.offset }
        var merged: [(offset: Int, size: Int)] = []
        for range in free {
            if let last = merged.last, last.offset + last.size == range.offset {
                merged[merged.count - 1].size += range.size
            } else {
                merged.append(range)
            }
        }
        block.free = merged
    }

    /// Releases blocks with nothing allocated in them (keeps the pool bounded by the largest
    /// plan that ran since the last trim).
    func trim() {
        blocks.removeAll { block in
            guard block.isEmpty else { return false }
            destroy(block)
            return true
        }
    }

    private func allocation(_ block: Block, _ offset: Int, _ size: Int) -> Allocation {
        Allocation(range: VulkanBufferRange(buffer: block.buffer, offset: offset, size: size), block: ObjectIdentifier(block))
    }

    private func take(_ size: Int, from block: Block) -> Int? {
        guard let index = block.free.firstIndex(where: { $0.size >= size }) else { return nil }
        let offset = block.free[index].offset
        if block.free[index].size == size {
            block.free.remove(at: index)
        } else {
            block.free[index].offset += size
            block.free[index].size -= size
        }
        return offset
    }

    private func makeBlock(size: Int) throws -> Block {
        let usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT.rawValue
            | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT.rawValue
            | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
        let (buffer, memory, _) = try context.makeBuffer(bytes: size, usage: usage,
                                                         required: 0, preferred: VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue)
        return Block(memory: memory, buffer: buffer, size: size)
    }

    private func destroy(_ block: Block) {
        context.vk.destroyBuffer(context.device, block.buffer, nil)
        context.vk.freeMemory(context.device, block.memory, nil)
    }
}

/// Host-visible, persistently mapped memory for uploads and downloads (the only host <-> device
/// traffic of a run). Grows when a larger plan needs more.
final class VulkanStagingBuffer {
    private let context: VulkanContext
    private(set) var buffer: VkBuffer?
    private var memory: VkDeviceMemory?
    private(set) var mapped: UnsafeMutableRawPointer?
    private(set) var size = 0
    private var coherent = true

    init(context: VulkanContext) { self.context = context }

    deinit { release() }

    func reserve(bytes: Int) throws {
        guard bytes > size else { return }
        release()
        let usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
        let host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue
        // Cached memory makes reading the result back fast; coherent saves flushes.
        let (buffer, memory, flags) = try context.makeBuffer(bytes: bytes, usage: usage, required: host,
            preferred: VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue)
        self.buffer = buffer
        self.memory = memory
        size = bytes
        var pointer: UnsafeMutableRawPointer?
        try vkCheck(context.vk.mapMemory(context.device, memory, 0, VkDeviceSize(VK_WHOLE_SIZE), 0, &pointer), "vkMapMemory")
        mapped = pointer
        coherent = flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue != 0
    }

    /// Makes host writes visible to the device (no-op on coherent memory).
    func flush() throws {
        guard !coherent, let memory else { return }
        var range = mappedRange(memory)
        try vkCheck(context.vk.flushMappedMemoryRanges(context.device, 1, &range), "vkFlushMappedMemoryRanges")
    }

    /// Makes device writes visible to the host (no-op on coherent memory).
    func invalidate() throws {
        guard !coherent, let memory else { return }
        var range = mappedRange(memory)
        try vkCheck(context.vk.invalidateMappedMemoryRanges(context.device, 1, &range), "vkInvalidateMappedMemoryRanges")
    }

    private func mappedRange(_ memory: VkDeviceMemory) -> VkMappedMemoryRange {
        var range = VkMappedMemoryRange()
        range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE
        range.memory = memory
        range.size = VkDeviceSize(VK_WHOLE_SIZE)
        return range
    }

    /// Gives the memory back (the next `reserve` makes it again).
    func release() {
        if let memory {
            context.vk.unmapMemory(context.device, memory)
            context.vk.freeMemory(context.device, memory, nil)
        }
        if let buffer { context.vk.destroyBuffer(context.device, buffer, nil) }
        buffer = nil
        memory = nil
        mapped = nil
        size = 0
    }
}
