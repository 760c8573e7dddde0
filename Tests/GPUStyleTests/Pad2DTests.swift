import XCTest
@testable import GPUStyle

/// The `pad2d` step: zero and reflection padding against torch's F.pad.
final class Pad2DTests: GraphOpTestCase {
    func testPad2D() throws {
        try forEachBackend { backend, name in
            for file in ["pad2d_zero", "pad2d_reflect", "pad2d_reflect1"] {
                let t = try fixture(file)
                let p = t["padding"]!.values.map { Int($0) }
                var layout = PoolLayout()
                let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
                let step = ExecutionPlan.Pad2D(input: input, output: output,
                                               padding: .init(top: p[0], left: p[1], bottom: p[2], right: p[3]),
                                               mode: GraphOps.scalar(t, "mode") == 1 ? .reflect : .zero)
                let pool = try GraphOps.run([.pad2d(step)], layout, on: backend)
                assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "\(name) \(file)")
            }
        }
    }

    func testVulkanInChannelChunks() throws {
        let t = try fixture("pad2d_reflect1")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 36 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
        let pool = try GraphOps.run([.pad2d(.init(input: input, output: output, padding: .init(1), mode: .reflect))], layout,
                                    on: backend)
        assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "vulkan chunked pad2d")
    }
}
