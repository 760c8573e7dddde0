import CVulkan
import Foundation

/// Runs an `ExecutionPlan` with the compute shaders in `Shaders/`: each run uploads the inputs
/// and the γ/β table, records every step into one command buffer (global barriers between
/// dependent dispatches), submits once, waits on one fence and downloads `plan.output`.
public final class VulkanBackend: NetworkBackend {
    public let context: VulkanContext
    let pipelines: VulkanPipelineCache
    let recorder: VulkanCommandRecorder
    let pool: VulkanBufferPool
    private let staging: VulkanStagingBuffer
    let weights: VulkanPackedWeights
    private let weightAllocation: VulkanBufferPool.Allocation

    /// Plan buffers, the γ/β table and the scale/shift table, kept across runs and reallocated
    /// only when a plan needs more.
    private var allocations: [ExecutionPlan.Buffer: VulkanBufferPool.Allocation] = [:]
    private var parameterAllocation: VulkanBufferPool.Allocation?
    private var affineAllocation: VulkanBufferPool.Allocation?
    /// Graph convolutions' weights, per `ModelConstants` object (VulkanConv2D.swift).
    let graphConstants = VulkanGraphConstants()
    /// The constants of the plan being recorded.
    private(set) var currentConstants: ModelConstants?

    /// Whether shaders with a subgroup build use it where the device has subgroup arithmetic
    /// (`VulkanContext.subgroupArithmetic`); tests turn it off to run the fallback on the same device.
    var usesSubgroups = true

    /// Whether 3x3 stride-1 graph convolutions with enough channels run Winograd's F(2x2, 3x3)
    /// (`runsWinograd`, conv2d_graph_winograd.comp); tests turn it off to compare with the
    /// direct shader on the same device.
    var usesWinograd = true
    /// Where an inverted residual block's depthwise convolution runs fused into its projection
    /// (`fusesDepthwiseProjection`, conv2d_graph_dwpw.comp); tests change it to compare.
    var depthwisePointwise = DepthwisePointwiseUse.wherePaying
    /// `allowsWinograd` of the plan being recorded (set for the span of `run`).
    private(set) var recordingAllowsWinograd = true

    /// Largest tensor range a dispatch binds: maxStorageBufferRange, and at most
    /// maxTexelBufferElements floats since tensors are bound as texel views. Tests lower it to
    /// exercise channel chunking on small tensors.
    var maxBindingBytes: Int

    /// Switches for GPU-oriented storage choices; all off by default.
    public struct Options: Sendable, Equatable {
        /// Keeps the intermediate tensors as fp16 behind R16/R16G16B16A16_SFLOAT texel views,
        /// halving their memory traffic: the style network's activations (padded, a, b, c) and a
        /// lowered graph's pool (classify, faces, mesh, digits, text). Arithmetic, the norm
        /// statistics and reductions, the network input and every downloaded buffer stay fp32
        /// (the style network's last layer writes an fp32 copy of the output). Needs 16-bit
        /// float uniform and storage texel buffer formats (`halfStorageProblem`); the backend's
        /// init throws `VulkanError.unsupported` without them (`ComputeChoice` under `auto`
        /// turns the option off with a warning instead).
        public var fp16Storage: Bool

        public init(fp16Storage: Bool = false) { self.fp16Storage = fp16Storage }

        /// The backend's part of the caller's options (`fp16Storage`).
        public init(_ compute: ComputeOptions) { self.init(fp16Storage: compute.fp16Storage) }
    }

    public let options: Options

    /// Plan buffers that may be held as fp16 (empty unless `options.fp16Storage`): the style
    /// plans' activations and the graph plans' pool. `.input`, `.result`, `.parameters` and
    /// `.moments` never are.
    let halfBuffers: Set<ExecutionPlan.Buffer>
    static let halfStorageBuffers: Set<ExecutionPlan.Buffer> = [.padded, .a, .b, .c, .pool]

    /// The buffers held as fp16 in the run being recorded: `halfBuffers` less the run's inputs
    /// and the buffers it downloads, which stay fp32 for the caller, except a style plan's
    /// output, which its last step writes to an fp32 copy (`redirectedOutputStep`). Each step's
    /// shader variant follows its bindings' buffers (`VulkanShader.storing(half:)`).
    private(set) var runHalfBuffers: Set<ExecutionPlan.Buffer> = []

    /// Bytes per element of a plan buffer in the current run.
    func elementBytes(_ buffer: ExecutionPlan.Buffer) -> Int { isHalf(buffer) ? 2 : 4 }
    func isHalf(_ buffer: ExecutionPlan.Buffer) -> Bool { runHalfBuffers.contains(buffer) }
    public var lastRunHalfBuffers: Set<ExecutionPlan.Buffer> { runHalfBuffers }

    /// With fp16 storage the plan's last step (a instance_norm apply into `plan.output`) writes this
    /// fp32 buffer instead, which is what the run downloads.
    private var outputAllocation: VulkanBufferPool.Allocation?
    /// Index of the step redirected to `outputAllocation` during the current run.
    private(set) var redirectedOutputStep: Int?
    var outputRange: VulkanBufferRange { outputAllocation!.range }

    /// Where a run's uploaded values go.
    private enum UploadDestination { case buffer(ExecutionPlan.Buffer), parameters, affine }

    /// Floats of the per-layer parameter tables the shaders declare (`vec4 table[1024]`).
    static let maxTableFloats = 4096

    public var name: String {
        "vulkan: \(context.info.name) (\(context.info.kind.rawValue))" + (options.fp16Storage ? ", fp16 storage" : "")
    }

    /// Plans get half of the largest device heap (the rest: weights, staging, the driver,
    /// other programs' use of the device). The driver's own host memory: `gpustyle` on a 128x96
    /// photo peaked at 133 MB of RSS with lavapipe, 31 MB on the CPU path (shader compilers, the
    /// loader and the ICD's state); GPU drivers hold as much or more.
    public var deviceLimits: DeviceMemoryLimits? {
        DeviceMemoryLimits(memoryBytes: context.largestDeviceHeapBytes / 2, bindingBytes: maxBindingBytes,
                           driverBytes: 100 << 20)
    }

    /// Opt-in per-dispatch timing (see `VulkanTimestamps`): when on, every run brackets each
    /// dispatch with timestamp queries and leaves the results in `lastTimings`. Off (the
    /// default) records no queries. Throws when the device's queue has no timestamps.
    public func setProfiling(_ enabled: Bool) throws {
        if enabled {
            if recorder.timestamps == nil { recorder.timestamps = try VulkanTimestamps(context: context) }
        } else {
            recorder.timestamps = nil
        }
        if !enabled { lastTimings = nil }
    }

    public var profiling: Bool { recorder.timestamps != nil }

    /// Device times of the last run's dispatches (nil unless profiling).
    public private(set) var lastTimings: VulkanSubmissionTimings?

    public init(context: VulkanContext, weights: [ConvolutionWeights], options: Options = Options()) throws {
        self.context = context
        self.options = options
        if options.fp16Storage { try Self.checkHalfStorage(context) }
        halfBuffers = options.fp16Storage ? Self.halfStorageBuffers : []
        pipelines = VulkanPipelineCache(context: context)
        recorder = try VulkanCommandRecorder(context: context)
        pool = VulkanBufferPool(context: context)
        staging = VulkanStagingBuffer(context: context)
        maxBindingBytes = context.maxBindingBytes
        self.weights = VulkanPackedWeights(weights, maxChunkBytes: min(1 << 16, Int(context.limits.maxUniformBufferRange)))
        weightAllocation = try pool.allocate(bytes: 4 * max(self.weights.floats.count, 1))
        try upload(self.weights.floats, to: weightAllocation.range)
    }

    deinit {
        releaseBuffers()
        graphConstants.release(pool)
        pool.free(weightAllocation)
    }

    public func releaseBuffers() {
        for allocation in allocations.values { pool.free(allocation) }
        [parameterAllocation, affineAllocation, outputAllocation].compactMap { $0 }.forEach(pool.free)
        allocations = [:]
        parameterAllocation = nil
        affineAllocation = nil
        outputAllocation = nil
        pool.trim()
        staging.release()
    }

    /// The device-feature check of fp16 storage: 16-bit float formats for uniform texel reads
    /// and storage texel writes, and channel-plane offsets (planeAlignment fp16 elements, where
    /// graph tensors start) that are valid texel buffer offsets. nil when the device has them,
    /// else what it lacks.
    static func halfStorageProblem(_ context: VulkanContext) -> String? {
        let needed = VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT.rawValue | VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT.rawValue
        for (format, name) in [(VK_FORMAT_R16_SFLOAT, "R16_SFLOAT"), (VK_FORMAT_R16G16B16A16_SFLOAT, "R16G16B16A16_SFLOAT")] {
            var properties = VkFormatProperties()
            context.vk.getPhysicalDeviceFormatProperties(context.physicalDevice, format, &properties)
            if context.hidesHalfFormats { properties.bufferFeatures = 0 }
            guard properties.bufferFeatures & needed == needed else {
                return "\(context.info.name) lacks uniform/storage texel buffers of \(name)"
            }
        }
        let planeBytes = 2 * ExecutionPlan.planeAlignment
        guard planeBytes % Int(context.limits.minTexelBufferOffsetAlignment) == 0 else {
            return "\(context.info.name)'s minTexelBufferOffsetAlignment (\(context.limits.minTexelBufferOffsetAlignment)) "
                + "does not divide \(planeBytes)-byte fp16 channel planes"
        }
        return nil
    }

    static func checkHalfStorage(_ context: VulkanContext) throws {
        if let problem = halfStorageProblem(context) {
            throw VulkanError.unsupported("fp16 storage was asked for (GPUSTYLE_VULKAN_FP16=1) but \(problem); "
                                          + "run without it for fp32 storage")
        }
    }

    /// `options` for `context`: under `--device auto` (`fallbackAllowed`) fp16 storage on a
    /// device without it is turned off, with the warning to show; under `--device gpu` the
    /// options are kept and the backend's init says what is missing.
    static func options(_ options: Options, for context: VulkanContext, fallbackAllowed: Bool) -> (Options, warning: String?) {
        guard options.fp16Storage, fallbackAllowed, let problem = halfStorageProblem(context) else { return (options, nil) }
        var fp32 = options
        fp32.fp16Storage = false
        return (fp32, "warning: fp16 storage: \(problem); using fp32 storage")
    }

    /// One-off upload through staging (weights at creation).
    func upload(_ values: [Float], to range: VulkanBufferRange) throws {
        let bytes = 4 * values.count
        guard bytes > 0 else { return }
        try staging.reserve(bytes: bytes)
        values.withUnsafeBytes { staging.mapped!.copyMemory(from: $0.baseAddress!, byteCount: bytes) }
        try staging.flush()
        try recorder.begin()
        recorder.copy(from: stagingRange(0, bytes), to: range, bytes: bytes)
        try recorder.submitAndWait()
    }

    private func stagingRange(_ offset: Int, _ bytes: Int) -> VulkanBufferRange {
        VulkanBufferRange(buffer: staging.buffer!, offset: offset, size: bytes)
    }

    /// Reuses an allocation that is large enough, else replaces it.
    private func ensure(_ existing: VulkanBufferPool.Allocation?, bytes: Int) throws -> VulkanBufferPool.Allocation {
        if let existing, existing.range.size >= bytes { return existing }
        if let existing { pool.free(existing) }
        return try pool.allocate(bytes: bytes)
    }

    func range(_ buffer: ExecutionPlan.Buffer) -> VulkanBufferRange { allocations[buffer]!.range }
    var weightRange: VulkanBufferRange { weightAllocation.range }
    var parameterRange: VulkanBufferRange { parameterAllocation!.range }
    var affineRange: VulkanBufferRange { affineAllocation!.range }

    public func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float],
                    affine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        let usedLayers = plan.steps.compactMap(\.layer).max().map { $0 + 1 } ?? 0
        recordingAllowsWinograd = Self.allowsWinograd(plan)
        defer { recordingAllowsWinograd = true }
        try prepareGraphConstants(plan)
        currentConstants = plan.constants
        defer { currentConstants = nil }
        let tableFloats = max(normParameters.count, affine?.count ?? 0, usedLayers * ExecutionPlan.parametersPerLayer, 1)
        // The shaders read the γ/β and scale/shift tables as 64 KiB uniform buffers.
        guard tableFloats <= Self.maxTableFloats else {
            throw VulkanError.unsupported("norm parameter tables beyond \(Self.maxTableFloats / ExecutionPlan.parametersPerLayer) layers")
        }
        precondition(normParameters.count >= usedLayers * ExecutionPlan.parametersPerLayer
                     || !plan.steps.contains { if case .instanceNormStatistics = $0 { true } else { false } },
                     "normParameters does not cover every layer of the plan")

        // fp32 for what the caller uploads or downloads (a style plan's output is redirected below).
        runHalfBuffers = halfBuffers.intersection(plan.bufferFloats.keys).subtracting(inputs.keys)
        for buffer in outputs where runHalfBuffers.contains(buffer) && !Self.redirectsOutput(plan, buffer) {
            runHalfBuffers.remove(buffer)
        }

        // Device buffers (grow only when needed; freed blocks are returned to the system).
        var reallocated = false
        func ensure(_ existing: VulkanBufferPool.Allocation?, floats: Int, elementBytes: Int = 4) throws -> VulkanBufferPool.Allocation {
            reallocated = reallocated || (existing?.range.size ?? 0) < elementBytes * floats
            return try self.ensure(existing, bytes: elementBytes * floats)
        }
        for (buffer, floats) in plan.bufferFloats {
            allocations[buffer] = try ensure(allocations[buffer], floats: floats, elementBytes: elementBytes(buffer))
        }
        parameterAllocation = try ensure(parameterAllocation, floats: tableFloats)
        affineAllocation = try ensure(affineAllocation, floats: tableFloats)
        redirectedOutputStep = nil
        for buffer in outputs where isHalf(buffer) {
            // A whole-image style plan's fp16 output is redirected to an fp32 copy by its last step.
            outputAllocation = try ensure(outputAllocation, floats: plan.bufferFloats[buffer]!)
            redirectedOutputStep = plan.steps.indices.last
        }
        if reallocated { pool.trim() }

        // Staging: the inputs and the γ/β (and scale/shift) tables, then room for the outputs.
        var uploads: [(UploadDestination, [Float], Int)] = []  // where, values, staging offset
        var offset = 0
        func stage(_ destination: UploadDestination, _ values: [Float]) {
            uploads.append((destination, values, offset))
            offset = roundUp(offset + 4 * values.count, 256)
        }
        for (buffer, values) in inputs.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let floats = plan.bufferFloats[buffer] else { preconditionFailure("input for \(buffer), which the plan does not use") }
            precondition(values.count <= floats, "input larger than its plan buffer")
            stage(.buffer(buffer), values)
        }
        stage(.parameters, normParameters)
        if let affine { stage(.affine, affine) }
        var downloads: [(ExecutionPlan.Buffer, Int, Int)] = []  // buffer, floats, staging offset
        for buffer in outputs {
            let floats = plan.returnedFloats(buffer)
            downloads.append((buffer, floats, offset))
            offset = roundUp(offset + 4 * floats, 256)
        }
        try staging.reserve(bytes: offset)
        for (_, values, at) in uploads {
            values.withUnsafeBytes { staging.mapped!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        try staging.flush()

        try recorder.begin()
        try recorder.timestamps?.start(recorder.commandBuffer, expectedDispatches: plan.steps.count)
        for (destination, values, at) in uploads where !values.isEmpty {
            let target: VulkanBufferRange
            switch destination {
            case .buffer(let buffer): target = range(buffer)
            case .parameters: target = parameterRange
            case .affine: target = affineRange
            }
            recorder.copy(from: stagingRange(at, 4 * values.count), to: target, bytes: 4 * values.count)
        }
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue)
        var fusedInto: Int?  // an add step recorded as the epilogue of the 1x1 convolution before it
        for (index, step) in plan.steps.enumerated() where index != fusedInto {
            recorder.timestamps?.step = index
            let next = plan.steps.indices.contains(index + 1) ? plan.steps[index + 1] : nil
            if case .conv2d(let conv) = step, let add = fusedAdd(conv, next) {
                try recordConv2D(conv, index: index, add: add,
                                 keepSum: plan.reads(conv.output, after: index + 1, downloading: outputs))
                fusedInto = index + 1
            } else {
                try record(step, index: index, constants: plan.constants)
            }
            recorder.barrier()
        }
        recorder.barrier(destinationStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, destinationAccess: VK_ACCESS_TRANSFER_READ_BIT.rawValue)
        for (buffer, floats, at) in downloads {
            let source = buffer == plan.output && redirectedOutputStep != nil ? outputRange : range(buffer)
            recorder.copy(from: source, to: stagingRange(at, 4 * floats), bytes: 4 * floats)
        }
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                         destinationStage: VK_PIPELINE_STAGE_HOST_BIT.rawValue, destinationAccess: VK_ACCESS_HOST_READ_BIT.rawValue)
        try recorder.timestamps?.finish()
        try recorder.submitAndWait()
        if let timestamps = recorder.timestamps { lastTimings = try timestamps.resolve() }
        try staging.invalidate()

        var results: [ExecutionPlan.Buffer: [Float]] = [:]
        for (buffer, floats, at) in downloads {
            results[buffer] = [Float](unsafeUninitializedCapacity: floats) { result, count in
                UnsafeMutableRawBufferPointer(result).copyMemory(
                    from: UnsafeRawBufferPointer(start: staging.mapped!.advanced(by: at), count: 4 * floats))
                count = floats
            }
        }
        return results
    }
}

extension VulkanBackend {
    /// Whether `buffer`, downloaded from a run of `plan`, can stay fp16 during the run: the plan's
    /// output when its last step is an instance_norm apply into it (the style network), which then
    /// writes an fp32 copy that the run downloads instead.
    static func redirectsOutput(_ plan: ExecutionPlan, _ buffer: ExecutionPlan.Buffer) -> Bool {
        guard buffer == plan.output, let last = plan.steps.last, case .instanceNormApply(let apply) = last else { return false }
        return apply.destination == plan.output
    }
}

extension ExecutionPlan.Step {
    /// The network layer a step belongs to (pads are attributed to nothing).
    var layer: Int? {
        switch self {
        case .pad: nil
        case .convolution(let c): c.layer
        case .fusedConvolution(let f): f.convolution.layer
        case .instanceNormStatistics(let s): s.layer
        case .instanceNormApply(let a): a.layer
        case .instanceNormMoments(let m): m.layer
        default: nil
        }
    }
}
