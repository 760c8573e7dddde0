import XCTest
@testable import GPUStyle

/// The `softmax` step over channels, with logits far beyond exp's range (only a max-subtracting
/// softmax passes), against torch.
final class SoftmaxTests: GraphOpTestCase {
    func testSoftmax() throws {
        try forEachBackend { backend, name in
            for file in ["softmax_c10", "softmax_c1000"] {
                let t = try fixture(file)
                var layout = PoolLayout()
                let input = layout.place(t["input"]!), output = layout.place(input.shape)
                let pool = try GraphOps.run([.softmax(.init(input: input, output: output))], layout, on: backend)
                assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 1e-6, "\(name) \(file)")
            }
        }
    }

    func testSoftmaxInPlace() throws {
        let t = try fixture("softmax_c10")
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let input = layout.place(t["input"]!)
            let pool = try GraphOps.run([.softmax(.init(input: input, output: input))], layout, on: backend)
            assertClose(GraphOps.read(pool, input), t["output"]!.values, tolerance: 1e-6, "\(name) softmax in place")
        }
    }
}
