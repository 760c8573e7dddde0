/// One timed interval of a profiled run: a CPU step or a Vulkan dispatch.
public struct ProfileSlice: Sendable {
    public let name: String
    /// Plan step it belongs to.
    public let step: Int?
    /// Seconds after the run's start (CPU: since `run` was called; Vulkan: since the command
    /// buffer's first timestamp).
    public let start: Double
    public let duration: Double
}

/// One run of the plan under the profiler.
public struct ProfiledRun: Sendable {
    /// Host wall time of `backend.run` (uploads, recording, submit, wait and download included).
    public let wallSeconds: Double
    /// Vulkan only: the device-side span from the first timestamp to the last.
    public let deviceSeconds: Double?
    public let slices: [ProfileSlice]
    /// Vulkan only: the plan buffers held as fp16 during the run (fp16 storage), which the
    /// report counts at 2 bytes per element.
    public var halfBuffers: Set<ExecutionPlan.Buffer> = []

    /// Sum of the slices' durations.
    public var slicesSeconds: Double { slices.reduce(0) { $0 + $1.duration } }

    /// Time per plan step (chunked steps sum their dispatches).
    public func stepSeconds(count: Int) -> [Double] {
        var times = [Double](repeating: 0, count: count)
        for slice in slices { if let step = slice.step, step < count { times[step] += slice.duration } }
        return times
    }
}

/// Runs a plan repeatedly with per-step timing: the CPU backend's step observer (monotonic
/// clock) or the Vulkan backend's timestamp queries.
public enum Profiler {
    /// `warmups` untimed runs, then `runs` profiled ones.
    public static func profile(_ backend: NetworkBackend, plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]],
                               normParameters: [Float], runs: Int, warmups: Int = 1) throws -> [ProfiledRun] {
        for _ in 0..<warmups { _ = try backend.run(plan, inputs: inputs, normParameters: normParameters) }
        var results: [ProfiledRun] = []
        if let cpu = backend as? CPUBackend {
            let saved = cpu.stepObserver
            defer { cpu.stepObserver = saved }
            for _ in 0..<runs {
                final class Box { var slices: [ProfileSlice] = [] }
                let box = Box()
                box.slices.reserveCapacity(plan.steps.count)
                let start = MonotonicClock.seconds()
                cpu.stepObserver = { index, step, seconds in
                    let now = MonotonicClock.seconds()
                    let cost = step.cost
                    box.slices.append(ProfileSlice(name: "\(cost.kind) \(cost.layer)".trimmingCharacters(in: .whitespaces),
                                                   step: index, start: now - seconds - start, duration: seconds))
                }
                _ = try cpu.run(plan, inputs: inputs, normParameters: normParameters)
                let wall = MonotonicClock.seconds() - start
                cpu.stepObserver = nil
                results.append(ProfiledRun(wallSeconds: wall, deviceSeconds: nil, slices: box.slices))
            }
        } else if let vulkan = backend as? VulkanBackend {
            let wasProfiling = vulkan.profiling
            try vulkan.setProfiling(true)
            defer { try? vulkan.setProfiling(wasProfiling) }
            for _ in 0..<runs {
                let start = MonotonicClock.seconds()
                _ = try vulkan.run(plan, inputs: inputs, normParameters: normParameters)
                let wall = MonotonicClock.seconds() - start
                guard let timings = vulkan.lastTimings else { preconditionFailure("profiling run without timings") }
                let slices = timings.dispatches.map { d in
                    ProfileSlice(name: d.label, step: d.step, start: d.startNanoseconds * 1e-9, duration: d.nanoseconds * 1e-9)
                }
                results.append(ProfiledRun(wallSeconds: wall, deviceSeconds: timings.totalNanoseconds * 1e-9, slices: slices,
                                           halfBuffers: vulkan.lastRunHalfBuffers))
            }
        } else {
            throw VulkanError.unsupported("the profiler times CPUBackend and VulkanBackend only")
        }
        return results
    }
}

import Foundation
