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
            let x = Self.logits(classes: classes, steps: steps)
            let expected = Self.reference(x, classes: classes, steps: steps)
            try InstructionSet.forEachSupported { isa in
                var layout = PoolLayout()
                let input = layout.place(shape, x), output = layout.place(shape)
                let y = GraphOps.read(try GraphOps.run([.softmax(.init(input: input, output: output))], layout,
                                                       on: CPUBackend(weights: [])), output)
                XCTAssertLessThanOrEqual(Self.worst(y, expected), 1e-12, "\(isa), \(steps) steps")
            }
        }
    }

    /// The channel-split softmax (`GraphSoftmax.byChannels`, which the step runs on maps of few
    /// pixels) with 1, 2, 3 and 5 parts (empty ones when they outnumber the channels), rows of 40,
    /// 37, 70 and 3 pixels (whole vectors, masked last ones, more than one sweep, a masked
    /// vector alone), into another tensor and in place, on every instruction set, against
    /// double precision as above.
    func testChannelPartsOnEveryInstructionSet() throws {
        for (classes, steps) in [(6906, 40), (700, 37), (50, 70), (3, 3)] {
            let x = Self.logits(classes: classes, steps: steps)
            let expected = Self.reference(x, classes: classes, steps: steps)
            InstructionSet.forEachSupported { isa in
                for parts in [1, 2, 3, 5] {
                    var y = [Float](repeating: .nan, count: x.count), inPlace = x
                    var source = x
                    source.withUnsafeMutableBufferPointer { source in
                        y.withUnsafeMutableBufferPointer { y in
                            GraphSoftmax.byChannels(source.baseAddress!, y.baseAddress!, channels: classes, plane: steps, parts: parts)
                        }
                    }
                    inPlace.withUnsafeMutableBufferPointer { xy in
                        GraphSoftmax.byChannels(xy.baseAddress!, xy.baseAddress!, channels: classes, plane: steps, parts: parts)
                    }
                    XCTAssertEqual(source, x, "\(isa): the input is left as it was")
                    XCTAssertLessThanOrEqual(Self.worst(y, expected), 1e-12, "\(isa), \(classes)x\(steps), \(parts) parts")
                    XCTAssertLessThanOrEqual(Self.worst(inPlace, expected), 1e-12, "\(isa), \(classes)x\(steps), \(parts) parts in place")
                }
            }
        }
    }

    /// [classes][steps] logits spread over 40 below 10, class 17 at 30 (the winner).
    static func logits(classes: Int, steps: Int) -> [Float] {
        var state: UInt64 = 12345
        return (0..<classes * steps).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return i / steps == 17 ? 30 : Float(state >> 40) / Float(1 << 24) * 40 - 30
        }
    }

    /// The softmax over classes of each step in double precision.
    static func reference(_ x: [Float], classes: Int, steps: Int) -> [Double] {
        var expected = [Double](repeating: 0, count: x.count)
        for t in 0..<steps {
            let logits = (0..<classes).map { Double(x[$0 * steps + t]) }
            let top = logits.max()!, sum = logits.reduce(0) { $0 + exp($1 - top) }
            for c in 0..<classes { expected[c * steps + t] = exp(logits[c] - top) / sum }
        }
        return expected
    }

    /// The largest error beyond 2e-5 of each expected value (NaN counts as infinite).
    static func worst(_ y: [Float], _ expected: [Double]) -> Double {
        zip(y, expected).map { got, want in
            let d = abs(Double(got) - want) - 2e-5 * want
            return d.isNaN ? .infinity : d
        }.max()!
    }
}
