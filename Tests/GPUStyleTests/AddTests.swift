import XCTest
@testable import GPUStyle

/// The `add` step (a + b, then the activation) against torch.
final class AddTests: GraphOpTestCase {
    func testAddWithActivations() throws {
        let t = try fixture("add")
        let constants = ModelConstants(values: [t["slopes"]!.values])
        let cases: [(String, NetworkGraph.ActivationFunction)] = [
            ("identity", .identity), ("relu", .relu), ("prelu", .init(.prelu, slopes: 0)),
        ]
        try forEachBackend { backend, name in
            for (output, function) in cases {
                var layout = PoolLayout()
                let a = layout.place(t["a"]!), b = layout.place(t["b"]!), result = layout.place(a.shape)
                let pool = try GraphOps.run([.add(.init(a: a, b: b, output: result, activation: function))], layout,
                                            constants: constants, on: backend)
                assertClose(GraphOps.read(pool, result), t[output]!.values, tolerance: 1e-6, "\(name) add \(output)")
            }
        }
    }

    /// The output written over the first operand (a residual sum in place).
    func testAddInPlace() throws {
        let t = try fixture("add")
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let a = layout.place(t["a"]!), b = layout.place(t["b"]!)
            let pool = try GraphOps.run([.add(.init(a: a, b: b, output: a, activation: .relu))], layout, on: backend)
            assertClose(GraphOps.read(pool, a), t["relu"]!.values, tolerance: 1e-6, "\(name) add in place")
        }
    }
}
