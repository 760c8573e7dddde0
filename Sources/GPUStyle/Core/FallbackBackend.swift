/// Runs on a primary (GPU) backend and, the first time it fails, switches to a fallback (CPU)
/// backend for good and re-runs the failed work there: a GPU failure is not the user's failure.
public final class FallbackBackend: NetworkBackend {
    private var primary: NetworkBackend?
    private let makeFallback: () -> NetworkBackend
    private var fallback: NetworkBackend?
    /// Receives a one-line warning when the switch happens (default: standard error).
    public var warn: (String) -> Void = { printToStandardError($0) }

    public init(primary: NetworkBackend, fallback: @escaping () -> NetworkBackend) {
        self.primary = primary
        self.makeFallback = fallback
    }

    public var name: String { (primary ?? fallback)?.name ?? "none" }

    public var deviceLimits: DeviceMemoryLimits? { (primary ?? fallback)?.deviceLimits }

    public func releaseBuffers() { (primary ?? fallback)?.releaseBuffers() }

    public func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float],
                    affine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        if let primary {
            do {
                return try primary.run(plan, inputs: inputs, normParameters: normParameters, affine: affine, outputs: outputs)
            } catch {
                warn("warning: \(primary.name) failed (\(error)); continuing on the CPU path")
                self.primary = nil
            }
        }
        if fallback == nil { fallback = makeFallback() }
        return try fallback!.run(plan, inputs: inputs, normParameters: normParameters, affine: affine, outputs: outputs)
    }
}
