import XCTest
@testable import GPUStyle

/// Speed of each graph step on a 32 x 256 x 256 map (GPUSTYLE_GRAPH_OPS_BENCH=1): the CPU step
/// time from CPUBackend's step observer, the Vulkan dispatch times from timestamps, as GB/s of
/// the floats each step must read and write. Opt-in: it measures, it checks nothing.
final class GraphOpTimingTests: XCTestCase {
    func testGraphOpThroughput() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_GRAPH_OPS_BENCH"] == "1" else {
            throw XCTSkip("set GPUSTYLE_GRAPH_OPS_BENCH=1 to measure")
        }
        let map = NetworkGraph.Shape(channels: 32, height: 256, width: 256)
        let half = NetworkGraph.Shape(channels: 32, height: 128, width: 128)
        var layout = PoolLayout()
        let x = layout.place(map, (0..<map.elementCount).map { Float($0 % 101) / 25 - 2 })
        let b = layout.place(map, (0..<map.elementCount).map { Float($0 % 37) / 9 - 2 })
        let small = layout.place(half, (0..<half.elementCount).map { Float($0 % 53) / 13 - 2 })
        let vector = layout.place(.init(channels: 32, height: 1, width: 1), (0..<32).map { Float($0) / 32 })
        let y = layout.place(.init(channels: 32, height: 258, width: 258))
        func out(_ s: NetworkGraph.Shape) -> ExecutionPlan.Region { .init(buffer: .pool, offset: y.offset, shape: s) }
        let steps: [(String, ExecutionPlan.Step, Int)] = [  // name, step, floats moved
            ("relu", .activation(.init(input: x, output: out(map), function: .relu)), 2 * map.elementCount),
            ("hard swish", .activation(.init(input: x, output: out(map), function: .init(.hardSwish))), 2 * map.elementCount),
            ("sigmoid", .activation(.init(input: x, output: out(map), function: .init(.sigmoid))), 2 * map.elementCount),
            ("add", .add(.init(a: x, b: b, output: out(map), activation: .relu)), 3 * map.elementCount),
            ("channel multiply", .channelMultiply(.init(input: x, scale: vector, output: out(map))), 2 * map.elementCount),
            ("copy", .copy(.init(input: x, output: out(map))), 2 * map.elementCount),
            ("global average pool", .globalAveragePool(.init(input: x, output: out(vector.shape))), map.elementCount),
            ("max pool 3/2", .maxPool(.init(input: x, output: out(half), kernel: 3, stride: 2, padding: .init(1))),
             map.elementCount + half.elementCount),
            ("softmax (32 channels)", .softmax(.init(input: x, output: out(map))), 2 * map.elementCount),
            ("resize nearest x2", .resize(.init(input: small, output: out(map), mode: .nearest, scale: 2)),
             half.elementCount + map.elementCount),
            ("resize bilinear x2", .resize(.init(input: small, output: out(map), mode: .bilinear, scale: 2)),
             half.elementCount + map.elementCount),
            ("pad2d reflect 1", .pad2d(.init(input: x, output: y, padding: .init(1), mode: .reflect)),
             map.elementCount + y.floatCount),
        ]
        let plan = ExecutionPlan(steps: steps.map(\.1), bufferFloats: [.pool: layout.values.count],
                                 inputShape: .init(channels: 1, height: 1, width: 1), output: .pool,
                                 outputShape: .init(channels: 1, height: 1, width: 1))
        let cpu = CPUBackend(weights: [])
        var cpuBest = [Double](repeating: .infinity, count: steps.count)
        cpu.stepObserver = { index, _, seconds in cpuBest[index] = min(cpuBest[index], seconds) }
        for _ in 0..<5 { _ = try cpu.run(plan, inputs: [.pool: layout.values], normParameters: []) }

        var vulkanBest = [Double](repeating: .infinity, count: steps.count)
        if let context = try? VulkanContext(validation: false) {
            let vulkan = try VulkanBackend(context: context, weights: [])
            try vulkan.setProfiling(true)
            for _ in 0..<5 {
                _ = try vulkan.run(plan, inputs: [.pool: layout.values], normParameters: [])
                var sums = [Double](repeating: 0, count: steps.count)
                for d in vulkan.lastTimings!.dispatches { if let s = d.step { sums[s] += d.nanoseconds * 1e-9 } }
                vulkanBest = zip(vulkanBest, sums).map { min($0, $1) }
            }
        }
        print("graph op (32x256x256)      cpu ms   GB/s   vulkan ms   GB/s")
        for (i, (name, _, floats)) in steps.enumerated() {
            let gb = Double(4 * floats) / 1e9
            print(name.padding(toLength: 24, withPad: " ", startingAt: 0)
                  + String(format: " %8.3f %6.1f %11.3f %6.1f", 1e3 * cpuBest[i], gb / cpuBest[i],
                           1e3 * vulkanBest[i], gb / vulkanBest[i]))
        }
    }
}
