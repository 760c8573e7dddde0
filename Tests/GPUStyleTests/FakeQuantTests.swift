import XCTest
@testable import GPUStyle

/// The `fake_quant` step (QuantizeLinear then DequantizeLinear) against numpy's formulas and
/// onnxruntime, which tools/make_fake_quant_fixtures.py checks agree bit for bit: int8 and uint8
/// ranges with saturation, and exact half-quantum ties (rounded half to even).
final class FakeQuantTests: GraphOpTestCase {
    private func step(_ t: [String: NamedTensor], _ input: ExecutionPlan.Region,
                      _ output: ExecutionPlan.Region) -> ExecutionPlan.Step {
        .fakeQuant(.init(input: input, output: output,
                         quantize: .init(scale: t["scale"]!.values[0], zeroPoint: GraphOps.scalar(t, "zero_point"),
                                         low: GraphOps.scalar(t, "low"), high: GraphOps.scalar(t, "high"))))
    }

    func testFakeQuant() throws {
        try forEachBackend { backend, name in
            for file in ["fake_quant_int8", "fake_quant_uint8", "fake_quant_ties"] {
                let t = try fixture(file)
                var layout = PoolLayout()
                let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
                let pool = try GraphOps.run([step(t, input, output)], layout, on: backend)
                assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "\(name) \(file)")
                // In place, as a plan may run it.
                let inPlace = try GraphOps.run([step(t, input, input)], layout, on: backend)
                assertClose(GraphOps.read(inPlace, input), t["output"]!.values, tolerance: 0, "\(name) \(file) in place")
            }
        }
    }

    func testGraphReferenceAgrees() throws {
        let t = try fixture("fake_quant_ties")
        let op = NetworkGraph.Operation.fakeQuantize(.int8(scale: 0.25, zeroPoint: 0))
        let input = GraphReference.Tensor(shape: GraphOps.shape(t["input"]!), values: t["input"]!.values)
        let out = try GraphReference.evaluate(op, [input], ModelConstants(values: [], names: []))
        XCTAssertEqual(out.values, t["output"]!.values)
    }

    func testVulkanInChannelChunks() throws {
        let t = try fixture("fake_quant_uint8")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 165 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!), output = layout.place(GraphOps.shape(t["output"]!))
        let pool = try GraphOps.run([step(t, input, output)], layout, on: backend)
        assertClose(GraphOps.read(pool, output), t["output"]!.values, tolerance: 0, "vulkan chunked fake_quant")
    }
}
