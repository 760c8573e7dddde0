import Foundation

/// `gpustyle bench --network`: each network on every path (the CPU path and each Vulkan
/// device) at each size it takes, one warm-up run then timed runs, each path's output compared
/// with the first path's. The graph networks run their lowered plan from the prepared input
/// tensor (`NetworkWorkload`); the style network runs as `gpustyle stylize` does (`Stylizer`
/// under the default memory budget, in tiles where the picture does not fit a device).
public enum NetworkBench {
    /// One way to run the networks.
    public struct Path {
        /// "cpu", "vulkan" (one device) or "vulkan<index>".
        public let label: String
        /// The device's name ("vulkan: llvmpipe ..." when made; the device's name when it failed).
        public let device: String
        /// Why the path cannot run, when it cannot.
        public let error: String?
        let context: VulkanContext?
        let options: ComputeOptions

        public var isCPU: Bool { label == "cpu" }

        /// The CPU path.
        public static func cpu() -> Path {
            Path(label: "cpu", device: CPUBackend(weights: []).name, error: nil, context: nil, options: ComputeOptions())
        }

        /// One path per Vulkan device (`options`: loader, validation, fp16 storage). A device whose
        /// context cannot be made, or no Vulkan at all, is a path with its error.
        public static func vulkan(options: ComputeOptions) -> [Path] {
            do {
                let devices = try VulkanContext.devices(options: options)
                return devices.map { info in
                    let label = devices.count == 1 ? "vulkan" : "vulkan\(info.index)"
                    do {
                        return Path(label: label, device: info.name, error: nil,
                                    context: try VulkanContext(deviceIndex: info.index, options: options), options: options)
                    } catch {
                        return Path(label: label, device: info.name, error: "\(error)", context: nil, options: options)
                    }
                }
            } catch {
                return [Path(label: "vulkan", device: "none", error: "\(error)", context: nil, options: options)]
            }
        }

        /// A backend on this path for networks with `convolutions` (the style network's).
        func backend(convolutions: [ConvolutionWeights]) throws -> NetworkBackend {
            guard let context else {
                if let error { throw BenchError(error) }
                return CPUBackend(weights: convolutions)
            }
            return try VulkanBackend(context: context, weights: convolutions, options: VulkanBackend.Options(options))
        }
    }

    /// One network at one size on one path.
    public struct Row: Sendable {
        public let network: BenchNetwork
        /// The input the network ran at, "WxH".
        public let size: String
        public let path: String
        public let device: String
        /// Making the path's backend for this network (weights, pipelines), at its first size.
        public let setupSeconds: Double
        /// The warm-up run.
        public let firstSeconds: Double
        /// The timed runs, sorted.
        public let seconds: [Double]
        /// The network's arithmetic per run (FLOPs) and its steps' memory traffic (bytes).
        public let flops: Double
        public let bytes: Double
        /// Largest difference from the first path's output at this size, relative to that
        /// output's largest magnitude (at least 1); nil on the first path.
        public var difference: Double?
        /// Why the row has no times (the path or the run failed).
        public let error: String?

        public var median: Double { seconds.isEmpty ? 0 : BenchStatistics.median(seconds) }
        public var minimum: Double { seconds.first ?? 0 }
        public var p95: Double { seconds.isEmpty ? 0 : BenchStatistics.percentile95(seconds) }
        public var gflops: Double { median > 0 ? flops / median / 1e9 : 0 }
        public var gbps: Double { median > 0 ? bytes / median / 1e9 : 0 }
    }

    /// `network` on every path in `paths` at each of `sizes` (the distinct sizes the network
    /// runs at: one for a fixed-size network), `runs` timed runs after one warm-up. A path or
    /// a run that fails is a row with its error, not a failure of the bench.
    public static func run(_ network: BenchNetwork, sizes: [(width: Int, height: Int)], paths: [Path], runs: Int,
                           style: Int = 2) throws -> [Row] {
        precondition(runs >= 1)
        var distinct: [(width: Int, height: Int)] = []
        for size in network.takesSize ? sizes : [network.defaultSize] {
            let rounded = network.inputSize(width: size.width, height: size.height)
            if !distinct.contains(where: { $0 == rounded }) { distinct.append(rounded) }
        }
        let workloads = try distinct.map { try NetworkWorkload.make(network, width: $0.width, height: $0.height, style: style) }
        let convolutions = workloads.first?.convolutions ?? []
        let mix = try StyleMix(style: style)
        var rows: [Row] = []
        var references: [String: [Float]] = [:]
        for path in paths {
            let start = MonotonicClock.seconds()
            let made = Result { try path.backend(convolutions: convolutions) }
            let setup = MonotonicClock.seconds() - start
            let device = (try? made.get().name) ?? path.device
            for workload in workloads {
                func failed(_ error: Error) -> Row {
                    Row(network: network, size: workload.size, path: path.label, device: device, setupSeconds: setup,
                        firstSeconds: 0, seconds: [], flops: workload.flops, bytes: workload.bytes, difference: nil, error: "\(error)")
                }
                let backend: NetworkBackend
                do { backend = try made.get() } catch { rows.append(failed(error)); continue }
                defer { backend.releaseBuffers() }
                let work: () throws -> [Float]
                if network == .style {
                    let stylizer = Stylizer(model: try StyleModel.bundled(), backend: backend)
                    stylizer.memoryBudget = MemoryBudget.defaultBudget()
                    let image = BenchInput.image(width: workload.width, height: workload.height)
                    work = { try stylizer.stylize(image, mix: mix).rgb }
                } else {
                    work = { try backend.run(workload.plan, inputs: workload.inputs, normParameters: workload.normParameters) }
                }
                do {
                    var begin = MonotonicClock.seconds()
                    var output = try work()
                    let first = MonotonicClock.seconds() - begin
                    var times: [Double] = []
                    for _ in 0..<runs {
                        begin = MonotonicClock.seconds()
                        output = try work()
                        times.append(MonotonicClock.seconds() - begin)
                    }
                    // A Vulkan run with fp16 storage moves 2 bytes per element of its half buffers.
                    let halfBuffers = backend.lastRunHalfBuffers
                    var row = Row(network: network, size: workload.size, path: path.label, device: device, setupSeconds: setup,
                                  firstSeconds: first, seconds: times.sorted(), flops: workload.flops,
                                  bytes: workload.bytes(halfBuffers: halfBuffers),
                                  difference: nil, error: nil)
                    if let reference = references[workload.size] {
                        row.difference = relativeDifference(output, reference)
                    } else {
                        references[workload.size] = output
                    }
                    rows.append(row)
                } catch {
                    rows.append(failed(error))
                }
            }
        }
        return rows
    }

    /// max |a - b| / max(1, max |b|); infinity when the lengths differ or a value is not finite.
    static func relativeDifference(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count else { return .infinity }
        var worst: Float = 0, magnitude: Float = 1
        for (x, y) in zip(a, b) {
            let d = abs(x - y)
            guard d.isFinite else { return .infinity }
            worst = max(worst, d)
            magnitude = max(magnitude, abs(y))
        }
        return Double(worst / magnitude)
    }
}
