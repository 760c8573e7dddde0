import CVulkan

/// What a host of GLSL kernels (the warp, the in-place composite, the detector's edge front)
/// needs on one device: cached pipelines, a command recorder (made on first use, so creating a
/// host cannot fail), a pool whose device buffers are kept and grown across calls, and a staging
/// buffer. Not safe to use from two threads at once.
final class VulkanComputeHost {
    let context: VulkanContext
    let pipelines: VulkanPipelineCache
    let pool: VulkanBufferPool
    let staging: VulkanStagingBuffer
    private var madeRecorder: VulkanCommandRecorder?
    private var buffers: [Int: VulkanBufferPool.Allocation] = [:]

    init(context: VulkanContext) {
        self.context = context
        pipelines = VulkanPipelineCache(context: context)
        pool = VulkanBufferPool(context: context)
        staging = VulkanStagingBuffer(context: context)
    }

    deinit {
        buffers.values.forEach(pool.free)
    }

    var deviceName: String { "vulkan: \(context.info.name) (\(context.info.kind.rawValue))" }

    func recorder() throws -> VulkanCommandRecorder {
        if let madeRecorder { return madeRecorder }
        let recorder = try VulkanCommandRecorder(context: context)
        madeRecorder = recorder
        return recorder
    }

    /// Ends a recording that leaves its result in `source`: copies `bytes` of it to staging at
    /// byte `offset`, submits, waits, and makes the copy visible to the host.
    func finish(_ recorder: VulkanCommandRecorder, copying source: VulkanBufferRange, toStagingAt offset: Int, bytes: Int) throws {
        recorder.barrier(destinationStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, destinationAccess: VK_ACCESS_TRANSFER_READ_BIT.rawValue)
        recorder.copy(from: source, to: VulkanBufferRange(buffer: staging.buffer!, offset: offset, size: bytes), bytes: bytes)
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                         destinationStage: VK_PIPELINE_STAGE_HOST_BIT.rawValue, destinationAccess: VK_ACCESS_HOST_READ_BIT.rawValue)
        try recorder.submitAndWait()
        try staging.invalidate()
    }

    /// Device buffer number `slot`, at least `bytes` long: the one from the previous call when
    /// it is big enough, else a new one (the old one goes back to the pool first).
    func buffer(_ slot: Int, bytes: Int) throws -> VulkanBufferRange {
        if let existing = buffers[slot] {
            if existing.range.size >= bytes { return existing.range }
            pool.free(existing)
            buffers[slot] = nil
        }
        let allocation = try pool.allocate(bytes: bytes)
        pool.trim()
        buffers[slot] = allocation
        return allocation.range
    }
}
