import XCTest
@testable import GPUStyle

/// The `resize` step: nearest and bilinear (half-pixel, align_corners=False) against torch.
final class ResizeTests: GraphOpTestCase {
    func testResize() throws {
        try forEachBackend { backend, name in
            for file in ["resize_nearest2", "resize_nearest3", "resize_bilinear2", "resize_bilinear4"] {
                let t = try fixture(file)
                var layout = PoolLayout()
                let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
                let mode = NetworkGraph.ResizeMode(rawValue: UInt32(GraphOps.scalar(t, "mode")))!
                let step = ExecutionPlan.Resize(input: input, output: output, mode: mode, scale: GraphOps.scalar(t, "scale"))
                let pool = try GraphOps.run([.resize(step)], layout, on: backend)
                assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 1e-6, "\(name) \(file)")
            }
        }
    }

    func testVulkanInChannelChunks() throws {
        let t = try fixture("resize_bilinear2")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 140 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
        let pool = try GraphOps.run([.resize(.init(input: input, output: output, mode: .bilinear, scale: 2))], layout,
                                    on: backend)
        assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 1e-6, "vulkan chunked resize")
    }
}
