/// Something that can execute an `ExecutionPlan`: the CPU kernels or a Vulkan device.
///
/// A backend is created once per process with a list of `ConvolutionWeights` (prepared or
/// uploaded at creation; `Convolution.layer` indexes the list) and reused for every run. It is
/// not safe to use from two threads at once.
public protocol NetworkBackend: AnyObject {
    /// Human-readable name, e.g. "cpu (2 threads, avx2+fma)" or "vulkan: llvmpipe (...)".
    var name: String { get }

    /// Runs the plan's steps. `inputs` gives the initial contents of some buffers (each at most
    /// `plan.bufferFloats[buffer]` floats long); the others start undefined. `normParameters` is
    /// the per-layer γ/β table (`ExecutionPlan.parametersPerLayer` floats per layer: γ at
    /// [0, 32), β at [32, 64)), as `StyleModel.normParameters(for:)` builds it; `InstanceNormStatistics`
    /// steps fold it into the scale/shift table that `InstanceNormApply` steps read. `affine`, when
    /// given, is that scale/shift table ready-made (same layout; tiled execution computes it
    /// from moments merged over the whole image). Returns the final contents of each buffer
    /// in `outputs` (`plan.returnedFloats(buffer)` floats each: the output tensor of the plan's
    /// output buffer, the whole of the others).
    func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float],
             affine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]]

    /// `run` of a plan without norm parameters whose `.input` buffer `writeInput` fills (all of
    /// `plan.bufferFloats[.input]` floats) instead of the caller handing over an array. A backend
    /// that can lends its own input buffer (the CPU path: the face detector's enlarged pass of a
    /// 720p photo would otherwise make its 44 MB input twice more, and a fresh process pays for
    /// every page it touches first); the default fills an array and calls `run`.
    func run(_ plan: ExecutionPlan, writingInput writeInput: (UnsafeMutableBufferPointer<Float>) -> Void,
             outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]]

    /// What a plan may use on the device (nil: host memory, bounded by the memory budget only).
    var deviceLimits: DeviceMemoryLimits? { get }

    /// Floats of each buffer this backend allocates for `plan` (the plan's sizes, less what its
    /// fused steps never write): what the memory budget counts.
    func bufferFloats(for plan: ExecutionPlan) -> [ExecutionPlan.Buffer: Int]

    /// Frees the buffers kept from earlier runs (the next run makes them again). Tiled
    /// execution calls it between passes: buffers grow to the largest plan seen per buffer, and
    /// passes of different shapes would otherwise keep the sum of their largest buffers.
    func releaseBuffers()

    /// The kernel that runs `step` of `plan` here, for `gpustyle profile`'s per-kind rows, where
    /// the step's kind alone does not say it: `ProfileReport.winogradMark`, a Vulkan graph
    /// shader's name (`VulkanBackend.kernelNote`); nil for other steps and backends.
    func kernelNote(for step: ExecutionPlan.Step, in plan: ExecutionPlan) -> String?

    /// The buffers the last run held as fp16 (a Vulkan device's fp16 storage): their traffic
    /// counts 2 bytes an element in `bench` and `profile`. Empty on the CPU path.
    var lastRunHalfBuffers: Set<ExecutionPlan.Buffer> { get }
}

/// A device's bounds on the plans it runs: whole-image plans must fit them, else they run in
/// tiles (`TilingLayout`).
public struct DeviceMemoryLimits: Sendable, Equatable {
    /// Bytes of plan buffers the device can hold.
    public var memoryBytes: Int
    /// Bytes one channel plane may span (one binding: maxStorageBufferRange).
    public var bindingBytes: Int
    /// Host memory the driver itself holds in this process (counted in the memory budget).
    public var driverBytes: Int

    public init(memoryBytes: Int, bindingBytes: Int, driverBytes: Int) {
        self.memoryBytes = memoryBytes
        self.bindingBytes = bindingBytes
        self.driverBytes = driverBytes
    }
}

extension NetworkBackend {
    public var deviceLimits: DeviceMemoryLimits? { nil }

    public func kernelNote(for step: ExecutionPlan.Step, in plan: ExecutionPlan) -> String? { nil }

    public var lastRunHalfBuffers: Set<ExecutionPlan.Buffer> { [] }

    public func bufferFloats(for plan: ExecutionPlan) -> [ExecutionPlan.Buffer: Int] { plan.bufferFloats }

    public func run(_ plan: ExecutionPlan, writingInput writeInput: (UnsafeMutableBufferPointer<Float>) -> Void,
                    outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        let floats = plan.bufferFloats[.input] ?? 0
        let input = [Float](unsafeUninitializedCapacity: floats) { buffer, count in
            writeInput(buffer)
            count = floats
        }
        return try run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: outputs)
    }

    /// Runs a whole-image plan and returns `plan.output`.
    public func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float]) throws -> [Float] {
        try run(plan, inputs: inputs, normParameters: normParameters, affine: nil, outputs: [plan.output])[plan.output]!
    }
}
