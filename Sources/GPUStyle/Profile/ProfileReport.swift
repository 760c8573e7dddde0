import Foundation

/// Per-step and per-op-kind profile of one path: median times over the profiled runs, their
/// share of the total, achieved GFLOP/s and GB/s (from `StepCost`), and where each step sits
/// on the device's roofline.
public struct ProfileReport: Sendable {
    public struct Row: Sendable {
        /// Step index (per-step rows) or nil (per-kind rows).
        public let step: Int?
        public let kind: String
        public let layer: String
        /// Steps aggregated in this row.
        public let count: Int
        public let milliseconds: Double
        /// Fraction of the sum of all steps' medians.
        public let share: Double
        public let flops: Double
        public let bytes: Double
        public var gflops: Double { milliseconds > 0 ? flops / (milliseconds * 1e6) : 0 }
        public var gbps: Double { milliseconds > 0 ? bytes / (milliseconds * 1e6) : 0 }
        public var intensity: Double { bytes > 0 ? flops / bytes : 0 }
        /// Set when limits are known: "compute" when the intensity is at or beyond the ridge
        /// point, else "memory", and the achieved fraction of that limit.
        public let bound: String?
        public let fractionOfLimit: Double?
    }

    public let path: String
    public let device: String
    public let width: Int
    public let height: Int
    public let runs: Int
    /// Median host wall time of a whole run.
    public let wallMilliseconds: Double
    /// Median device-side span of a run (Vulkan timestamps), nil on the CPU path.
    public let deviceMilliseconds: Double?
    /// Sum of the per-step medians.
    public let stepsMilliseconds: Double
    public let limits: DeviceLimits?
    public let steps: [Row]
    public let kinds: [Row]

    /// The mark a kind gets when its kernel does other work than the direct computation its
    /// FLOPs count (`CPUBackend.kernelNote`, `VulkanBackend.kernelNote`): Winograd's F(4x4, 3x3)
    /// on the CPU path, F(2x2, 3x3) on Vulkan (conv2d_graph_winograd.comp).
    public static let winogradMark = "winograd*"
    /// What the mark means, for the report's readers.
    public static let winogradFootnote = "winograd*: Winograd F(4x4, 3x3) on the CPU path, F(2x2, 3x3) on Vulkan; "
        + "its GFLOP/s count the direct convolution's FLOPs"

    /// `kernelNote` names, for a step, the kernel that runs it when the kind alone does not say
    /// (it is appended to the kind).
    public init(path: String, device: String, plan: ExecutionPlan, runs: [ProfiledRun], limits: DeviceLimits?,
                kernelNote: (ExecutionPlan.Step) -> String? = { _ in nil }) {
        precondition(!runs.isEmpty)
        self.path = path
        self.device = device
        width = plan.inputShape.width
        height = plan.inputShape.height
        self.runs = runs.count
        self.limits = limits
        wallMilliseconds = 1000 * Self.median(runs.map(\.wallSeconds))
        deviceMilliseconds = runs.first!.deviceSeconds == nil ? nil : 1000 * Self.median(runs.compactMap(\.deviceSeconds))
        let perRun = runs.map { $0.stepSeconds(count: plan.steps.count) }
        let medians = plan.steps.indices.map { i in 1000 * Self.median(perRun.map { $0[i] }) }
        let total = medians.reduce(0, +)
        stepsMilliseconds = total

        func row(step: Int?, kind: String, layer: String, count: Int, ms: Double, flops: Double, bytes: Double) -> Row {
            var bound: String?, fraction: Double?
            if let limits, ms > 0 {
                let intensity = bytes > 0 ? flops / bytes : 0
                if flops > 0 && intensity >= limits.ridge {
                    bound = "compute"; fraction = flops / (ms * 1e6) / limits.gflops
                } else {
                    bound = "memory"; fraction = bytes / (ms * 1e6) / limits.gbps
                }
            }
            return Row(step: step, kind: kind, layer: layer, count: count, milliseconds: ms, share: total > 0 ? ms / total : 0,
                       flops: flops, bytes: bytes, bound: bound, fractionOfLimit: fraction)
        }
        var stepRows: [Row] = []
        var order: [String] = []
        var sums: [String: (count: Int, ms: Double, flops: Double, bytes: Double)] = [:]
        for (index, step) in plan.steps.enumerated() {
            let cost = step.cost(halfBuffers: runs.first!.halfBuffers)
            let kind = kernelNote(step).map { "\(cost.kind) \($0)" } ?? cost.kind
            stepRows.append(row(step: index, kind: kind, layer: cost.layer, count: 1, ms: medians[index],
                                flops: cost.flops, bytes: cost.bytes))
            if sums[kind] == nil { order.append(kind) }
            let s = sums[kind] ?? (0, 0, 0, 0)
            sums[kind] = (s.count + 1, s.ms + medians[index], s.flops + cost.flops, s.bytes + cost.bytes)
        }
        steps = stepRows
        kinds = order.map { kind in
            let s = sums[kind]!
            return row(step: nil, kind: kind, layer: "", count: s.count, ms: s.ms, flops: s.flops, bytes: s.bytes)
        }.sorted { $0.milliseconds > $1.milliseconds }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// A JSON-ready dictionary (numbers in ms, GFLOP/s, GB/s; fractions 0...1).
    public func jsonObject() -> [String: Any] {
        func encode(_ r: Row) -> [String: Any] {
            var o: [String: Any] = ["kind": r.kind, "count": r.count, "ms": r.milliseconds, "share": r.share,
                                    "gflops": r.gflops, "gbps": r.gbps, "flops": r.flops, "bytes": r.bytes,
                                    "intensity": r.intensity]
            if let step = r.step { o["step"] = step; o["layer"] = r.layer }
            if let bound = r.bound { o["bound"] = bound }
            if let f = r.fractionOfLimit { o["fraction_of_limit"] = f }
            return o
        }
        var object: [String: Any] = [
            "path": path, "device": device, "size": "\(width)x\(height)", "runs": runs,
            "wall_ms": wallMilliseconds, "steps_ms": stepsMilliseconds,
            "steps": steps.map(encode), "kinds": kinds.map(encode),
        ]
        if let deviceMilliseconds { object["device_ms"] = deviceMilliseconds }
        if let limits {
            object["limits"] = ["device": limits.device, "peak_gflops": limits.gflops, "copy_gbps": limits.gbps,
                                "ridge_flops_per_byte": limits.ridge]
        }
        return object
    }
}

/// Chrome / Perfetto trace ("Trace Event Format", complete events only): load the file in
/// ui.perfetto.dev or chrome://tracing.
public struct ChromeTrace {
    public struct Track {
        public let pid: Int
        public let tid: Int
        public let name: String
        public init(pid: Int, tid: Int, name: String) { self.pid = pid; self.tid = tid; self.name = name }
    }

    private var events: [[String: Any]] = []
    public init() {}

    public var eventCount: Int { events.count }

    /// One "X" event per slice, at `offset` seconds on the trace's time line.
    public mutating func add(_ slices: [ProfileSlice], track: Track, offset: Double = 0) {
        for slice in slices {
            var args: [String: Any] = ["track": track.name]
            if let step = slice.step { args["step"] = step }
            events.append(["name": slice.name, "ph": "X", "ts": max(0, (offset + slice.start) * 1e6),
                           "dur": max(0, slice.duration * 1e6), "pid": track.pid, "tid": track.tid, "args": args])
        }
    }

    public func data() throws -> Data {
        try JSONSerialization.data(withJSONObject: ["traceEvents": events, "displayTimeUnit": "ms"], options: [.sortedKeys])
    }

    /// Writes the trace to `path` by `OutputPath`'s rules (a file is replaced atomically).
    public func write(to path: String) throws {
        try OutputPath(path).write(try data())
    }
}
