import XCTest
@testable import GPUStyle

/// Kernel-2 stride-2 transposed convolution against torch's conv_transpose2d
/// (tools/make_conv2d_fixtures.py), on the CPU and on Vulkan, with and without bias.
final class TransposedConv2DTests: XCTestCase {
    func testCPUMatchesTorch() throws {
        let names = try Conv2DFixtures.names(prefix: "transposed_conv2d_")
        XCTAssertEqual(names.count, 2)
        for name in names {
            let t = try Fixtures.tensors(name)
            for inPool in [false, true] {
                let got = try Conv2DFixtures.run(CPUBackend(weights: []), Conv2DFixtures.transposed(t, inPool: inPool))
                Conv2DFixtures.assertClose(got, t["output"]!, "\(name)\(inPool ? " in the pool" : "")")
            }
        }
    }
}

final class TransposedConv2DVulkanTests: VulkanTestCase {
    func testVulkanMatchesTorch() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        for name in try Conv2DFixtures.names(prefix: "transposed_conv2d_") {
            let t = try Fixtures.tensors(name)
            for inPool in [false, true] {
                let got = try Conv2DFixtures.run(backend, Conv2DFixtures.transposed(t, inPool: inPool))
                Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on Vulkan\(inPool ? " in the pool" : "")")
            }
        }
    }
}
