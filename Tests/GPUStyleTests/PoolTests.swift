import XCTest
@testable import GPUStyle

/// The `globalAveragePool` and `maxPool` steps against torch.
final class PoolTests: GraphOpTestCase {
    private func globalAverage(_ input: ExecutionPlan.Region, _ layout: PoolLayout, backend: NetworkBackend) throws -> [Float] {
        var layout = layout
        let output = layout.place(.init(channels: input.channels, height: 1, width: 1))
        let pool = try GraphOps.run([.globalAveragePool(.init(input: input, output: output))], layout, on: backend)
        return GraphOps.read(pool, output)
    }

    func testGlobalAveragePool() throws {
        try forEachBackend { backend, name in
            for (file, tolerance) in [("global_average_pool_c5", Float(1e-6)), ("global_average_pool_c3_offset", 2e-5)] {
                let t = try fixture(file)
                var layout = PoolLayout()
                let input = layout.place(t["input"]!)
                assertClose(try globalAverage(input, layout, backend: backend), t["output"]!.values, tolerance: tolerance,
                            "\(name) \(file)")
            }
        }
    }

    /// A 1024 x 1024 plane of nearly equal values around 1000 (a bias-dominated map): plain float
    /// sums round the same way for long stretches and drift (64 strided float sums: off by 0.1).
    func testGlobalAveragePoolOfALargePlaneStaysAccurate() throws {
        let shape = NetworkGraph.Shape(channels: 2, height: 1024, width: 1024)
        let values = (0..<shape.elementCount).map { i in Float(1000.3) + Float(i % 7) / 1024 + Float(i / (1 << 20)) }
        var expected = [Double](repeating: 0, count: 2)
        for (i, v) in values.enumerated() { expected[i / (1 << 20)] += Double(v) }
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let input = layout.place(shape, values)
            assertClose(try globalAverage(input, layout, backend: backend), expected.map { Float($0 / Double(1 << 20)) },
                        tolerance: 1e-4, "\(name) 1024x1024 mean")
        }
    }

    func testMaxPool() throws {
        try forEachBackend { backend, name in
            for file in ["max_pool_k3s2p1", "max_pool_k2s2", "max_pool_k3s1p1"] {
                let t = try fixture(file)
                let p = t["padding"]!.values.map { Int($0) }
                var layout = PoolLayout()
                let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
                let step = ExecutionPlan.MaxPool(input: input, output: output, kernel: GraphOps.scalar(t, "kernel"),
                                                 stride: GraphOps.scalar(t, "stride"),
                                                 padding: .init(top: p[0], left: p[1], bottom: p[2], right: p[3]))
                let pool = try GraphOps.run([.maxPool(step)], layout, on: backend)
                assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "\(name) \(file)")
            }
        }
    }

    /// One channel plane per binding: the chunked dispatches of both pools.
    func testVulkanInChannelChunks() throws {
        let t = try fixture("max_pool_k3s2p1"), g = try fixture("global_average_pool_c5")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 99 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
        let averaged = layout.place(g["input"]!), mean = layout.place(GraphOps.shape(g["output"]!))
        let pool = try GraphOps.run([.maxPool(.init(input: input, output: output, kernel: 3, stride: 2, padding: .init(1))),
                                     .globalAveragePool(.init(input: averaged, output: mean))], layout, on: backend)
        assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "vulkan chunked max pool")
        assertClose(GraphOps.read(pool, mean), g["output"]!.values, tolerance: 1e-6, "vulkan chunked global average pool")
    }
}
