import CKernels
import Foundation
import XCTest
@testable import GPUStyle

/// Prints the CPU time of every convolution of torchvision's MobileNetV2 at 224x224 (ms,
/// GFLOP/s = 2 x multiply-adds / s, GB/s = (input + output floats) x 4 bytes / s), the fastest
/// of 30 runs (GPUSTYLE_CONV2D_RUNS) of each step, and the whole convolution chain's wall time;
/// GPUSTYLE_CONV2D_THREADS=n limits the threads. Runs only with GPUSTYLE_CONV2D_TIMING=1
/// (timings are meaningless on a busy test machine).
/// tools/bench_conv2d_onnxruntime.py prints onnxruntime's table for the same shapes.
final class Conv2DTimingTests: XCTestCase {
    /// Uniform in [0, 1).
    static func unit(_ random: inout SeededRandom) -> Double { Double(random.next() >> 11) * 0x1p-53 }

    /// (t, c, n, s) of the inverted residual stages (Sandler et al. 2018, Table 2).
    static let stages = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    /// MobileNetV2's convolutions as one chain (residual adds and the pooling left out: other
    /// steps), random weights; then the classifier on a 1280x1x1 input.
    static func graphs() -> (features: NetworkGraph, classifier: NetworkGraph) {
        var values: [[Float]] = []
        var random = SeededRandom(seed: 7)
        var nodes: [NetworkGraph.Node] = []
        var tensor = 0
        func conv(_ cin: Int, _ cout: Int, kernel: Int, stride: Int = 1, groups: Int = 1, relu6: Bool) {
            values.append((0..<cout * cin / groups * kernel * kernel).map { _ in Float(Self.unit(&random) - 0.5) * 0.2 })
            values.append((0..<cout).map { _ in Float(Self.unit(&random) - 0.5) })
            let c = NetworkGraph.Convolution(weights: values.count - 2, bias: values.count - 1, outputChannels: cout,
                                             kernelHeight: kernel, kernelWidth: kernel, strideY: stride, strideX: stride,
                                             padding: .init(kernel / 2), groups: groups, activation: relu6 ? .relu6 : .identity)
            nodes.append(.init(name: "conv \(nodes.count)", operation: .convolution(c), inputs: [tensor], output: tensor + 1))
            tensor += 1
        }
        conv(3, 32, kernel: 3, stride: 2, relu6: true)
        var cin = 32
        for (t, c, n, s) in stages {
            for i in 0..<n {
                let hidden = cin * t
                if t != 1 { conv(cin, hidden, kernel: 1, relu6: true) }
                conv(hidden, hidden, kernel: 3, stride: i == 0 ? s : 1, groups: hidden, relu6: true)
                conv(hidden, c, kernel: 1, relu6: false)
                cin = c
            }
        }
        conv(cin, 1280, kernel: 1, relu6: true)
        let features = NetworkGraph(input: 0, output: tensor, tensorCount: tensor + 1, nodes: nodes,
                                    constants: ModelConstants(values: values))
        let fc = ModelConstants(values: [(0..<1000 * 1280).map { _ in Float(Self.unit(&random) - 0.5) * 0.05 },
                                         (0..<1000).map { _ in Float(Self.unit(&random)) }])
        let classifier = NetworkGraph(input: 0, output: 1, tensorCount: 2, nodes: [
            .init(name: "classifier", operation: .fullyConnected(weights: 0, bias: 1, outputs: 1000), inputs: [0], output: 1),
        ], constants: fc)
        return (features, classifier)
    }

    func testMobileNetV2ConvolutionTimes() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_CONV2D_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_CONV2D_TIMING=1")
        }
        // GPUSTYLE_CONV2D_THREADS=n runs the kernels on at most n threads.
        let threads = ProcessInfo.processInfo.environment["GPUSTYLE_CONV2D_THREADS"].flatMap(Int.init) ?? Int.max
        try ParallelFor.$workerLimit.withValue(threads) { try timeMobileNetV2() }
    }

    /// The same chain on Vulkan (lavapipe here): device time per convolution kind from
    /// timestamp queries, fastest of 3 runs, and the whole run's wall time.
    func testMobileNetV2ConvolutionTimesOnVulkan() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_CONV2D_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_CONV2D_TIMING=1")
        }
        let backend = try VulkanBackend(context: VulkanContext(), weights: [])
        try backend.setProfiling(true)
        let plan = try GraphLowering.lower(Self.graphs().features, input: .init(channels: 3, height: 224, width: 224))
        let input = [Float](repeating: 0.5, count: 3 * 224 * 224)
        var wall = Double.infinity
        var fastest = [Double](repeating: .infinity, count: plan.steps.count)
        for _ in 0..<3 {
            let start = MonotonicClock.seconds()
            _ = try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [])
            wall = min(wall, MonotonicClock.seconds() - start)
            for dispatch in backend.lastTimings?.dispatches ?? [] {
                if let step = dispatch.step { fastest[step] = min(fastest[step], dispatch.nanoseconds * 1e-9) }
            }
        }
        var byKind: [String: (seconds: Double, multiplyAdds: Int)] = [:]
        for (index, step) in plan.steps.enumerated() {
            guard case .conv2d(let c) = step else { continue }
            let kind = c.isDepthwise ? "depthwise" : c.isPointwise ? "pointwise" : "general"
            byKind[kind, default: (0, 0)].seconds += fastest[index]
            byKind[kind, default: (0, 0)].multiplyAdds += c.multiplyAdds
        }
        print("conv2d on \(backend.name)")
        for (kind, total) in byKind.sorted(by: { $0.key < $1.key }) {
            print(String(format: "%@: %.2f ms, %.1f GFLOP/s", kind, total.seconds * 1e3,
                         2 * Double(total.multiplyAdds) / total.seconds * 1e-9))
        }
        print(String(format: "whole chain (wall, with upload and recording): %.2f ms", wall * 1e3))
    }

    private func timeMobileNetV2() throws {
        let (features, classifier) = Self.graphs()
        let runs = Int(ProcessInfo.processInfo.environment["GPUSTYLE_CONV2D_RUNS"] ?? "") ?? 30
        let backend = CPUBackend(weights: [])
        print("conv2d on \(backend.name), at most \(ParallelFor.workerLimit == Int.max ? "all" : "\(ParallelFor.workerLimit)") threads, kernels \(String(cString: gs_conv2d_isa()))")
        // The roofline's ceilings on all cores (a 64 MiB copy: memory, not cache, bandwidth).
        let limits = MicroBenchmarks.cpu()
        print(String(format: "machine: %.0f GFLOP/s FMA, %.1f GB/s copy", limits.gflops, limits.gbps))
        var sumOfFastest = 0.0
        var wall = (features: Double.infinity, classifier: Double.infinity)
        for (graph, input) in [(features, NetworkGraph.Shape(channels: 3, height: 224, width: 224)),
                               (classifier, NetworkGraph.Shape(channels: 1280, height: 1, width: 1))] {
            let plan = try GraphLowering.lower(graph, input: input)
            var random = SeededRandom(seed: 1)
            let values = (0..<input.elementCount).map { _ in Float(Self.unit(&random) * 2 - 1) }
            var fastest = [Double](repeating: .infinity, count: plan.steps.count)
            backend.stepObserver = { index, _, seconds in fastest[index] = min(fastest[index], seconds) }
            for _ in 0..<runs {
                let start = MonotonicClock.seconds()
                _ = try backend.run(plan, inputs: [.input: values], normParameters: [], affine: nil, outputs: [])
                let seconds = MonotonicClock.seconds() - start
                if input.channels == 3 { wall.features = min(wall.features, seconds) } else { wall.classifier = min(wall.classifier, seconds) }
            }
            backend.stepObserver = nil
            for (index, step) in plan.steps.enumerated() {
                guard case .conv2d(let c) = step else { continue }
                let seconds = fastest[index]
                sumOfFastest += seconds
                let bytes = Double(4 * (c.input.floatCount + c.output.floatCount))
                print(String(format: "%2d %@ %@ -> %@ k%d s%d g%d: %7.3f ms %7.1f GFLOP/s %6.1f GB/s", index,
                             c.isDepthwise ? "dw" : c.isPointwise ? "pw" : "  ", "\(c.input.shape)", "\(c.output.shape)",
                             c.kernelHeight, c.strideY, c.groups, seconds * 1e3, 2 * Double(c.multiplyAdds) / seconds * 1e-9,
                             bytes / seconds * 1e-9))
            }
        }
        print(String(format: "sum of the fastest steps %.3f ms; fastest whole runs: features %.3f ms + classifier %.3f ms",
                     sumOfFastest * 1e3, wall.features * 1e3, wall.classifier * 1e3))
    }
}
