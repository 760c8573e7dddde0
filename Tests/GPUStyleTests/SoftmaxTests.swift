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

    /// The text recogniser's head: 6906 classes at 40 and 37 steps (whole vectors, and a last
    /// one padded), logits spread over 60 so that some exponentials fall below the kernel's
    /// clamp at e^-87, on every instruction set, against double precision: each probability
    /// within 2e-5 of its value (the float sum over 6906 terms) plus 1e-12.
    func testManyClassesOnEveryInstructionSet() throws {
        let classes = 6906
        for steps in [40, 37] {
            let shape = NetworkGraph.Shape(channels: classes, height: 1, width: steps)
            var state: UInt64 = 12345
            let x: [Float] = (0..<shape.elementCount).map { i in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return i / steps == 17 ? 30 : Float(state >> 40) / Float(1 << 24) * 40 - 30  // class 17 wins
            }
            var expected = [Double](repeating: 0, count: x.count)
            for t in 0..<steps {
                let logits = (0..<classes).map { Double(x[$0 * steps + t]) }
                let top = logits.max()!, sum = logits.reduce(0) { $0 + exp($1 - top) }
                for c in 0..<classes { expected[c * steps + t] = exp(logits[c] - top) / sum }
            }
            try InstructionSet.forEachSupported { isa in
                var layout = PoolLayout()
                let input = layout.place(shape, x), output = layout.place(shape)
                let y = GraphOps.read(try GraphOps.run([.softmax(.init(input: input, output: output))], layout,
                                                       on: CPUBackend(weights: [])), output)
                let worst = zip(y, expected).map { abs(Double($0) - $1) - 2e-5 * $1 }.max()!
                XCTAssertLessThanOrEqual(worst, 1e-12, "\(isa), \(steps) steps")
            }
        }
    }
}
