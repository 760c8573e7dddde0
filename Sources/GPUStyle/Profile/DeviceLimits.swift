import CKernels
import CVulkan
import Dispatch

/// A device's measured ceilings for the roofline: FMA throughput and copy bandwidth.
public struct DeviceLimits: Sendable {
    /// What was measured, e.g. "cpu (2 threads, avx2+fma)".
    public let device: String
    /// Peak arithmetic, GFLOP/s (an FMA counts as 2 flops).
    public let gflops: Double
    /// Copy bandwidth, GB/s (bytes read + bytes written, 1 GB = 1e9 bytes).
    public let gbps: Double

    public init(device: String, gflops: Double, gbps: Double) {
        self.device = device
        self.gflops = gflops
        self.gbps = gbps
    }

    /// Arithmetic intensity (flops per byte) above which a kernel is compute-bound.
    public var ridge: Double { gflops / gbps }
}

/// Built-in micro-benchmarks of the CPU path's and a Vulkan device's limits.
public enum MicroBenchmarks {
    /// All cores running independent FMA chains held in registers (C kernel on the kernels'
    /// widest vectors: AVX-512, AVX2+FMA or portable, as `--isa` caps them), then all cores
    /// streaming a 64 MiB copy; best of `repeats` each.
    public static func cpu(repeats: Int = 3) -> DeviceLimits {
        let workers = ParallelFor.workers
        let iterations: Int64 = 4_000_000
        var best = 0.0
        for _ in 0...repeats {  // the first pass is a warm-up (clocks, thread pool)
            let start = MonotonicClock.seconds()
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let sink = gs_bench_fma(iterations, Float(worker) * 1e-3)
                if sink == 12345.678 { print("", terminator: "") }  // keeps the result alive
            }
            let seconds = MonotonicClock.seconds() - start
            let flops = 2 * Double(iterations) * Double(gs_bench_fma_lanes()) * Double(workers)
            best = max(best, flops / seconds / 1e9)
        }

        let floats = 16 << 20  // 64 MiB each way: far beyond any cache here
        let source = UnsafeMutablePointer<Float>.allocate(capacity: floats)
        let destination = UnsafeMutablePointer<Float>.allocate(capacity: floats)
        defer { source.deallocate(); destination.deallocate() }
        source.initialize(repeating: 1, count: floats)
        destination.initialize(repeating: 0, count: floats)
        let src = UncheckedSendable(value: source), dst = UncheckedSendable(value: destination)
        var bestCopy = 0.0
        for _ in 0...repeats {
            let start = MonotonicClock.seconds()
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let begin = floats / workers * worker / 32 * 32
                let end = worker == workers - 1 ? floats : floats / workers * (worker + 1) / 32 * 32
                gs_bench_copy(dst.value + begin, src.value + begin, Int64(end - begin))
            }
            let seconds = MonotonicClock.seconds() - start
            bestCopy = max(bestCopy, 2 * 4 * Double(floats) / seconds / 1e9)
        }
        let name = "cpu (\(workers) threads, \(String(cString: gs_cpu_kernel_isa())))"
        return DeviceLimits(device: name, gflops: best, gbps: bestCopy)
    }

    /// The FMA-throughput shader (Shaders/bench_fma.comp) and the copy-bandwidth shader
    /// (Shaders/bench_copy.comp), timed with timestamp queries; best of `repeats` each.
    public static func vulkan(_ backend: VulkanBackend, repeats: Int = 3) throws -> DeviceLimits {
        let context = backend.context
        let recorder = backend.recorder
        let saved = recorder.timestamps
        defer { recorder.timestamps = saved }
        let timestamps = try VulkanTimestamps(context: context)
        recorder.timestamps = timestamps
        let pool = VulkanBufferPool(context: context)

        func time(_ record: () throws -> Void) throws -> Double {
            try recorder.begin()
            try timestamps.start(recorder.commandBuffer, expectedDispatches: 1)
            try record()
            try timestamps.finish()
            try recorder.submitAndWait()
            return try timestamps.resolve().dispatches.reduce(0) { $0 + $1.nanoseconds } * 1e-9
        }

        // FMA: 256 workgroups x 64 invocations x 2048 iterations x 64 flops.
        let groups = 256, iterations = 2048
        let sink = try pool.allocate(bytes: 4 * 64 * groups)
        defer { pool.free(sink) }
        let fma = try backend.pipelines.pipeline(.benchFMA)
        var bestFlops = 0.0
        for _ in 0...repeats {
            let seconds = try time {
                try recorder.dispatch(fma, buffers: [sink.range], push: [UInt32(iterations), Float(0.5).bitPattern],
                                      groups: (groups, 1, 1), label: "bench fma")
            }
            bestFlops = max(bestFlops, Double(groups * 64 * iterations * 64) / seconds / 1e9)
        }

        // Copy: 32 MiB (or the largest binding) each way, one vec4 per invocation.
        let bytes = min(32 << 20, backend.maxBindingBytes) / 16 * 16
        let source = try pool.allocate(bytes: bytes), destination = try pool.allocate(bytes: bytes)
        defer { pool.free(source); pool.free(destination) }
        let copy = try backend.pipelines.pipeline(.benchCopy)
        let count4 = bytes / 16
        let rowGroups = min((count4 + 63) / 64, Int(context.limits.maxComputeWorkGroupCount.0))
        let rows = (count4 + 64 * rowGroups - 1) / (64 * rowGroups)
        var bestCopy = 0.0
        for _ in 0...repeats {
            let seconds = try time {
                try recorder.dispatch(copy, buffers: [source.range, destination.range],
                                      push: [UInt32(count4), UInt32(64 * rowGroups)],
                                      groups: (rowGroups, rows, 1), label: "bench copy")
            }
            bestCopy = max(bestCopy, 2 * Double(bytes) / seconds / 1e9)
        }
        return DeviceLimits(device: backend.name, gflops: bestFlops, gbps: bestCopy)
    }
}

extension VulkanShader {
    static let benchFMA = VulkanShader(name: "bench_fma", bindings: [.storageTexels(VK_FORMAT_R32_SFLOAT)], pushConstantWords: 2)
    static let benchCopy = VulkanShader(name: "bench_copy",
                                        bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .storageTexels(VK_FORMAT_R32G32B32A32_SFLOAT)],
                                        pushConstantWords: 2)
}
