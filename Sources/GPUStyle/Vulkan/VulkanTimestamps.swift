import CVulkan

/// One dispatch's time on the device, from timestamp queries around it.
public struct VulkanDispatchTiming: Sendable {
    /// The label the op recorder gave the dispatch ("step 4: conv layer 1 3x3/2 ...").
    public let label: String
    /// Index of the plan step the dispatch belongs to (nil outside a plan, e.g. micro-benchmarks).
    public let step: Int?
    /// Start, in nanoseconds after the command buffer's first timestamp.
    public let startNanoseconds: Double
    public let nanoseconds: Double
}

/// What one profiled submission measured.
public struct VulkanSubmissionTimings: Sendable {
    public let dispatches: [VulkanDispatchTiming]
    /// From the first timestamp (start of the command buffer, before the uploads) to the last
    /// (after the download copy): the device-side total of the run.
    public let totalNanoseconds: Double
}

/// Timestamp queries bracketing every dispatch of one recording (the profiler's Vulkan side).
///
/// Queries come from pools reset inside the command buffer itself (vkCmdResetQueryPool before
/// the first write), so profiling keeps the single command buffer and single submit. The first
/// pool is sized to the plan (2 queries per step, plus the start and end marks); a plan whose
/// steps split into more dispatches (channel chunks) moves on to further pools, made on demand.
/// Both marks of a dispatch are written at BOTTOM_OF_PIPE: "everything before has finished",
/// so a dispatch's time includes waiting on the barrier before it and nothing of its
/// neighbours.
final class VulkanTimestamps {
    private let context: VulkanContext
    /// Nanoseconds per timestamp tick (VkPhysicalDeviceLimits.timestampPeriod).
    let period: Double
    /// Mask of the valid bits of a timestamp (the queue family's timestampValidBits).
    let validMask: UInt64

    private var pools: [(pool: VkQueryPool, capacity: UInt32)] = []
    private var reset: [Bool] = []
    private var current = 0
    private var used: UInt32 = 0
    private var commandBuffer: VkCommandBuffer?
    private var pending: [(label: String, step: Int?, begin: (Int, UInt32), end: (Int, UInt32))] = []
    private var startMark: (Int, UInt32)?
    private var endMark: (Int, UInt32)?

    /// The plan step being recorded (set by the backend before each step).
    var step: Int?
    /// True between `start` and `finish`: only then do dispatches get timestamps.
    private(set) var recording = false

    init(context: VulkanContext) throws {
        self.context = context
        var count: UInt32 = 0
        context.vk.getPhysicalDeviceQueueFamilyProperties(context.physicalDevice, &count, nil)
        var families = [VkQueueFamilyProperties](repeating: VkQueueFamilyProperties(), count: Int(count))
        context.vk.getPhysicalDeviceQueueFamilyProperties(context.physicalDevice, &count, &families)
        let bits = families[Int(context.queueFamily)].timestampValidBits
        guard bits > 0 else {
            throw VulkanError.unsupported("\(context.info.name)'s compute queue has no timestamps (timestampValidBits = 0)")
        }
        guard context.limits.timestampPeriod > 0 else {
            throw VulkanError.unsupported("\(context.info.name) reports timestampPeriod 0")
        }
        validMask = bits >= 64 ? UInt64.max : (UInt64(1) << UInt64(bits)) - 1
        period = Double(context.limits.timestampPeriod)
    }

    deinit {
        for (pool, _) in pools { context.vk.destroyQueryPool(context.device, pool, nil) }
    }

    private func makePool(capacity: UInt32) throws -> VkQueryPool {
        var info = VkQueryPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO
        info.queryType = VK_QUERY_TYPE_TIMESTAMP
        info.queryCount = capacity
        var pool: VkQueryPool?
        try vkCheck(context.vk.createQueryPool(context.device, &info, nil, &pool), "vkCreateQueryPool")
        return pool!
    }

    /// Begins timing a recording into `commandBuffer` (already begun) and writes the start mark.
    func start(_ commandBuffer: VkCommandBuffer, expectedDispatches: Int) throws {
        let wanted = UInt32(2 * max(expectedDispatches, 1) + 2)
        if pools.isEmpty || pools[0].capacity < wanted {
            if let first = pools.first { context.vk.destroyQueryPool(context.device, first.pool, nil); pools.removeFirst() }
            pools.insert((try makePool(capacity: wanted), wanted), at: 0)
        }
        reset = Array(repeating: false, count: pools.count)
        self.commandBuffer = commandBuffer
        current = 0
        used = 0
        pending.removeAll(keepingCapacity: true)
        step = nil
        recording = true
        startMark = try write()
        endMark = nil
    }

    /// Writes one timestamp; returns where it went.
    func write() throws -> (Int, UInt32) {
        let vk = context.vk
        if used == pools[current].capacity {
            current += 1
            used = 0
            if current == pools.count {
                pools.append((try makePool(capacity: 256), 256))
                reset.append(false)
            }
        }
        if !reset[current] {
            vk.cmdResetQueryPool(commandBuffer, pools[current].pool, 0, pools[current].capacity)
            reset[current] = true
        }
        vk.cmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pools[current].pool, used)
        used += 1
        return (current, used - 1)
    }

    /// Records that the dispatch labelled `label` ran between `begin` and a mark written now.
    func dispatched(_ label: String, since begin: (Int, UInt32)) throws {
        pending.append((label, step, begin, try write()))
    }

    /// Writes the end mark; call after the last command of the recording.
    func finish() throws {
        endMark = try write()
        recording = false
    }

    /// Reads the queries after the submission completed.
    func resolve() throws -> VulkanSubmissionTimings {
        guard let startMark, let endMark else { preconditionFailure("resolve() without start() and finish()") }
        var values: [[UInt64]] = []
        for index in 0...current {
            let count = index == current ? Int(used) : Int(pools[index].capacity)
            var data = [UInt64](repeating: 0, count: max(count, 1))
            if count > 0 {
                try data.withUnsafeMutableBytes { bytes in
                    try vkCheck(context.vk.getQueryPoolResults(context.device, pools[index].pool, 0, UInt32(count), bytes.count,
                                                               bytes.baseAddress, 8,
                                                               VK_QUERY_RESULT_64_BIT.rawValue | VK_QUERY_RESULT_WAIT_BIT.rawValue),
                                "vkGetQueryPoolResults")
                }
            }
            values.append(data)
        }
        func value(_ mark: (Int, UInt32)) -> UInt64 { values[mark.0][Int(mark.1)] & validMask }
        // Ticks to ns; wrap-around of a narrow counter is handled by masking the difference.
        func ns(_ from: (Int, UInt32), _ to: (Int, UInt32)) -> Double {
            Double((value(to) &- value(from)) & validMask) * period
        }
        let dispatches = pending.map { entry in
            VulkanDispatchTiming(label: entry.label, step: entry.step, startNanoseconds: ns(startMark, entry.begin),
                                 nanoseconds: ns(entry.begin, entry.end))
        }
        return VulkanSubmissionTimings(dispatches: dispatches, totalNanoseconds: ns(startMark, endMark))
    }
}
