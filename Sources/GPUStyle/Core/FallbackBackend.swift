/// A network backend on a `DeviceFallback`: runs on the primary (GPU) backend and, the first time
/// it fails, switches to the fallback (CPU) backend for good and re-runs the failed work there.
public final class FallbackBackend: NetworkBackend {
    private let stages: DeviceFallback<NetworkBackend>
    /// Receives a one-line warning when the switch happens (default: standard error).
    public var warn: (String) -> Void {
        get { stages.warn }
        set { stages.warn = newValue }
    }

    public init(primary: NetworkBackend, fallback: @escaping () -> NetworkBackend) {
        stages = DeviceFallback(primary: primary, fallback: fallback) { primary, error in
            "warning: \(primary.name) failed (\(error)); continuing on the CPU path"
        }
    }

    /// Whether the switch to the CPU has happened.
    public var hasFallenBack: Bool { stages.hasFallenBack }

    public var name: String { stages.active.name }

    public var deviceLimits: DeviceMemoryLimits? { stages.active.deviceLimits }

    /// The active backend's (the CPU path, which a failure switches to, needs no more than the plan).
    public func bufferFloats(for plan: ExecutionPlan) -> [ExecutionPlan.Buffer: Int] { stages.active.bufferFloats(for: plan) }

    public func releaseBuffers() { stages.active.releaseBuffers() }

    public func kernelNote(for step: ExecutionPlan.Step, in plan: ExecutionPlan) -> String? {
        stages.active.kernelNote(for: step, in: plan)
    }

    public var lastRunHalfBuffers: Set<ExecutionPlan.Buffer> { stages.active.lastRunHalfBuffers }

    public func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float],
                    affine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        try stages.run { try $0.run(plan, inputs: inputs, normParameters: normParameters, affine: affine, outputs: outputs) }
    }

    public func run(_ plan: ExecutionPlan, writingInput writeInput: (UnsafeMutableBufferPointer<Float>) -> Void,
                    outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        try stages.run { try $0.run(plan, writingInput: writeInput, outputs: outputs) }
    }
}
