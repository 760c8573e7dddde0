import XCTest
@testable import GPUStyle

/// The `activation` step, all eight kinds, against torch (tools/make_graph_op_fixtures.py).
final class ActivationTests: GraphOpTestCase {
    /// Fixture output name, function (slopes are constant 0).
    static let cases: [(String, NetworkGraph.ActivationFunction)] = [
        ("identity", .identity), ("relu", .relu), ("sigmoid", .init(.sigmoid)), ("relu6", .relu6),
        ("leaky_relu", .init(.leakyRelu, alpha: 0.1)), ("hard_sigmoid", .init(.hardSigmoid, alpha: 0.2, beta: 0.5)),
        ("hard_sigmoid_torch", .init(.hardSigmoid, alpha: 1.0 / 6, beta: 0.5)), ("hard_swish", .init(.hardSwish)),
        ("prelu", .init(.prelu, slopes: 0)),
    ]

    private func check(_ file: String, inPlace: Bool, backend: NetworkBackend, _ name: String) throws {
        let t = try fixture(file)
        let constants = ModelConstants(values: [t["slopes"]!.values])
        for (output, function) in Self.cases {
            var layout = PoolLayout()
            let input = layout.place(t["input"]!)
            let result = inPlace ? input : layout.place(input.shape)
            let pool = try GraphOps.run([.activation(.init(input: input, output: result, function: function))], layout,
                                        constants: constants, on: backend)
            assertClose(GraphOps.read(pool, result), t[output]!.values, tolerance: 2e-6,
                        "\(name) \(file) \(output)\(inPlace ? " in place" : "")")
        }
    }

    func testAllKindsMatchTorch() throws {
        try forEachBackend { backend, name in
            for file in ["activation_c5", "activation_c3"] { try check(file, inPlace: false, backend: backend, name) }
        }
    }

    func testInPlace() throws {
        try forEachBackend { backend, name in try check("activation_c5", inPlace: true, backend: backend, name) }
    }

    /// Bindings of one channel plane each (chunked dispatches), and PReLU over more channels than
    /// one dispatch's push-constant slopes.
    func testVulkanInChannelChunks() throws {
        guard let backend = try chunkedVulkan(bindingBytes: 4 * 63 + 256) else { throw XCTSkip("no Vulkan") }
        try check("activation_c5", inPlace: false, backend: backend, "vulkan chunked")
    }

    func testPReLUBeyondOneDispatchOfSlopes() throws {
        let channels = VulkanBackend.slopesPerDispatch * 2 + 3
        let shape = NetworkGraph.Shape(channels: channels, height: 3, width: 5)
        let x = (0..<shape.elementCount).map { Float($0 % 7) - 4 }
        let slopes = (0..<channels).map { Float($0) / 8 }
        let expected = x.enumerated().map { i, v in v < 0 ? v * slopes[i / 15] : v }
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let input = layout.place(shape, x), output = layout.place(shape)
            let pool = try GraphOps.run([.activation(.init(input: input, output: output, function: .init(.prelu, slopes: 0)))],
                                        layout, constants: ModelConstants(values: [slopes]), on: backend)
            assertClose(GraphOps.read(pool, output), expected, tolerance: 0, "\(name) prelu over \(channels) channels")
        }
    }
}
