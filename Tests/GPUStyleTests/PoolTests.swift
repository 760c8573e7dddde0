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

    /// Kernels 1-4, strides 1-3 and every padding up to kernel - 1, on maps from 1 to 40 wide
    /// (windows inside the row, clipped at either edge, or none inside), against the plain
    /// definition; the text detector's 2x2/1 pool padded right and bottom among them.
    func testMaxPoolEdgesAgainstDefinition() throws {
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        var cases = [(kernel: 2, stride: 1, padding: NetworkGraph.Padding(top: 0, left: 0, bottom: 1, right: 1), height: 9, width: 37)]
        while cases.count < 300 {
            let k = 1 + next(4), s = 1 + next(3)
            let padding = NetworkGraph.Padding(top: next(k), left: next(k), bottom: next(k), right: next(k))
            let (h, w) = (1 + next(12), 1 + next(40))
            if h + padding.top + padding.bottom >= k && w + padding.left + padding.right >= k { cases.append((k, s, padding, h, w)) }
        }
        let backend = CPUBackend(weights: [])
        for c in cases {
            let shape = NetworkGraph.Shape(channels: 2, height: c.height, width: c.width)
            let out = NetworkGraph.Shape(channels: 2, height: (c.height + c.padding.top + c.padding.bottom - c.kernel) / c.stride + 1,
                                         width: (c.width + c.padding.left + c.padding.right - c.kernel) / c.stride + 1)
            let x = (0..<shape.elementCount).map { _ in Float(next(1000)) / 10 - 50 }
            var expected: [Float] = []
            for ch in 0..<2 {
                for oy in 0..<out.height {
                    for ox in 0..<out.width {
                        var best = -Float.infinity
                        for dy in 0..<c.kernel {
                            for dx in 0..<c.kernel {
                                let y = oy * c.stride - c.padding.top + dy, xx = ox * c.stride - c.padding.left + dx
                                if y >= 0 && y < c.height && xx >= 0 && xx < c.width { best = max(best, x[(ch * c.height + y) * c.width + xx]) }
                            }
                        }
                        expected.append(best)
                    }
                }
            }
            var layout = PoolLayout()
            let input = layout.place(shape, x), output = layout.place(out)
            let pool = try GraphOps.run([.maxPool(.init(input: input, output: output, kernel: c.kernel, stride: c.stride,
                                                        padding: c.padding))], layout, on: backend)
            XCTAssertEqual(GraphOps.read(pool, output), expected, "\(c)")
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
