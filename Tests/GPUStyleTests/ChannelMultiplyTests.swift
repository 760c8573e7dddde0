import XCTest
@testable import GPUStyle

/// The `channelMultiply` step (squeeze-and-excite scaling) against numpy.
final class ChannelMultiplyTests: GraphOpTestCase {
    func testChannelMultiply() throws {
        let t = try fixture("channel_multiply")
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let input = layout.place(t["input"]!), scale = layout.place(t["scale"]!), output = layout.place(input.shape)
            let pool = try GraphOps.run([.channelMultiply(.init(input: input, scale: scale, output: output))], layout,
                                        on: backend)
            assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 1e-6, "\(name) channel multiply")
        }
    }

    func testVulkanInChannelChunks() throws {
        let t = try fixture("channel_multiply")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 2 * 30 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!), scale = layout.place(t["scale"]!), output = layout.place(input.shape)
        let pool = try GraphOps.run([.channelMultiply(.init(input: input, scale: scale, output: output))], layout, on: backend)
        assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 1e-6, "vulkan chunked channel multiply")
    }
}
