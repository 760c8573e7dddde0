import XCTest
@testable import GPUStyle

/// The `quantized_instance_norm` step against onnxruntime running three layers cut out of
/// Magenta's arbitrary-style transform (tools/make_quantized_instance_norm_fixtures.py): with
/// a ReLU, without, and the 3-channel last layer; a few channels nearly constant.
final class QuantizedInstanceNormTests: GraphOpTestCase {
    static let cases = ["quantized_instance_norm_relu", "quantized_instance_norm_identity", "quantized_instance_norm_expand3"]

    static func norm(_ t: [String: NamedTensor]) -> NetworkGraph.QuantizedInstanceNorm {
        let q = t["quantizers"]!.values
        return .init(quantizers: (0..<10).map { .int8(scale: q[2 * $0], zeroPoint: Int(q[2 * $0 + 1])) },
                     epsilon: t["epsilon"]!.values[0], relu: t["relu"]!.values[0] == 1)
    }

    /// Output values more than `tolerance` quanta of the last quantisation from onnxruntime's, and
    /// the largest difference in quanta.
    static func compare(_ out: [Float], _ expected: [Float], quantum: Float) -> (off: Int, worst: Float) {
        let diffs = zip(out, expected).map { abs($0 - $1) / quantum }
        return (diffs.filter { $0 > 0.5 }.count, diffs.max() ?? 0)
    }

    func testQuantizedInstanceNorm() throws {
        try forEachBackend { backend, name in
            for file in Self.cases {
                let t = try fixture(file)
                let n = Self.norm(t)
                var layout = PoolLayout()
                let input = layout.place(t["input"]!)
                let channels = input.channels
                let vector = NetworkGraph.Shape(channels: channels, height: 1, width: 1)
                let gamma = layout.place(vector, t["gamma"]!.values), beta = layout.place(vector, t["beta"]!.values)
                let output = layout.place(input.shape)
                let step = ExecutionPlan.Step.quantizedInstanceNorm(.init(input: input, gamma: gamma, beta: beta, output: output,
                                                                          norm: n))
                let pool = try GraphOps.run([step], layout, on: backend)
                let (off, worst) = Self.compare(GraphOps.read(pool, output), t["output"]!.values, quantum: n.quantizers[9].scale)
                print("\(name) \(file): \(off) of \(input.floatCount) values off onnxruntime's, at most \(worst) quanta")
                XCTAssertEqual(off, 0, "\(name) \(file)")
            }
        }
    }

    func testGraphReferenceAgrees() throws {
        for file in Self.cases {
            let t = try fixture(file)
            let n = Self.norm(t)
            let x = GraphReference.Tensor(shape: GraphOps.shape(t["input"]!), values: t["input"]!.values)
            let vector = NetworkGraph.Shape(channels: x.shape.channels, height: 1, width: 1)
            let out = try GraphReference.evaluate(.quantizedInstanceNorm(n), [
                x, .init(shape: vector, values: t["gamma"]!.values), .init(shape: vector, values: t["beta"]!.values),
            ], ModelConstants(values: []))
            XCTAssertEqual(Self.compare(out.values, t["output"]!.values, quantum: n.quantizers[9].scale).off, 0, file)
        }
    }

    func testVulkanInChannelChunks() throws {
        let t = try fixture("quantized_instance_norm_relu")
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 480 * 5 + 256) else { throw XCTSkip("no Vulkan") }
        var layout = PoolLayout()
        let input = layout.place(t["input"]!)
        let vector = NetworkGraph.Shape(channels: input.channels, height: 1, width: 1)
        let gamma = layout.place(vector, t["gamma"]!.values), beta = layout.place(vector, t["beta"]!.values)
        let output = layout.place(input.shape)
        let n = Self.norm(t)
        let pool = try GraphOps.run([.quantizedInstanceNorm(.init(input: input, gamma: gamma, beta: beta, output: output, norm: n))],
                                    layout, on: backend)
        XCTAssertEqual(Self.compare(GraphOps.read(pool, output), t["output"]!.values, quantum: n.quantizers[9].scale).off, 0)
    }
}
