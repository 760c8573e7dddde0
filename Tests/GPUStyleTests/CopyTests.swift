import XCTest
@testable import GPUStyle

/// The `copy` step, alone and as GraphLowering lowers a concat (one copy per input into a channel
/// slice of the output, at offsets that are not 64-float aligned).
final class CopyTests: GraphOpTestCase {
    func testCopyBetweenPoolRegions() throws {
        let t = try fixture("activation_c5")
        try forEachBackend { backend, name in
            var layout = PoolLayout()
            let input = layout.place(t["input"]!), output = layout.place(input.shape)
            let pool = try GraphOps.run([.copy(.init(input: input, output: output))], layout, on: backend)
            XCTAssertEqual(GraphOps.read(pool, output), t["input"]!.values, "\(name) copy")
        }
    }

    /// x -> relu, hard swish, sigmoid -> concat, lowered: three activations into the pool, then
    /// copies into channels 0..<3, 3..<6 and 6..<9 of the result (floats 0, 105, 210).
    func testLoweredConcat() throws {
        let t = try fixture("concat")
        let shape = GraphOps.shape(t["input"]!)
        let graph = NetworkGraph(input: 0, output: 4, tensorCount: 5, nodes: [
            .init(name: "relu", operation: .activation(.relu), inputs: [0], output: 1),
            .init(name: "hswish", operation: .activation(.init(.hardSwish)), inputs: [0], output: 2),
            .init(name: "sigmoid", operation: .activation(.init(.sigmoid)), inputs: [0], output: 3),
            .init(name: "concat", operation: .concat, inputs: [1, 2, 3], output: 4),
        ], constants: ModelConstants(values: []))
        let plan = try GraphLowering.lower(graph, input: shape)
        let copies = plan.steps.compactMap { step -> ExecutionPlan.Copy? in if case .copy(let c) = step { c } else { nil } }
        XCTAssertEqual(copies.map(\.output.offset), [0, 105, 210], "the lowering writes channel slices (not 64-float aligned)")
        try forEachBackend { backend, name in
            let out = try backend.run(plan, inputs: [.input: t["input"]!.values], normParameters: [])
            assertClose(Array(out.prefix(t["output"]!.values.count)), t["output"]!.values, tolerance: 2e-6, "\(name) concat")
        }
    }
}
