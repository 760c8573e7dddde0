import XCTest
@testable import GPUStyle

/// An add step after a 1x1 convolution run as the convolution's epilogue on the CPU
/// (`CPUBackend.fusedAdd`, `gs_conv2d_params.residual`), as the Vulkan backend does
/// (`VulkanBackend.fusedAdd`): the same decision (`ExecutionPlan.fusableResidualAdd`), the same
/// floats as the two steps one by one, and both close to a float64 reference.
final class PlanResidualAddTests: XCTestCase {
    private struct Case {
        let cin, cout, height, width: Int
        let activation: NetworkGraph.ActivationFunction
        let kind: Int32  // gs_conv2d_kind: 0 GEMM, 3 the small-map kernel
    }

    /// The GEMM on a partial pixel block (7x7) and on whole blocks (the recogniser's 96->48 at
    /// 12x80, GELU), and the small-map kernel (its 320->160 at 3x80; 300->37 at 5x7, a partial
    /// channel block).
    private let cases = [Case(cin: 37, cout: 37, height: 7, width: 7, activation: .identity, kind: 0),
                         Case(cin: 96, cout: 48, height: 12, width: 80, activation: .init(.gelu), kind: 0),
                         Case(cin: 320, cout: 160, height: 3, width: 80, activation: .identity, kind: 3),
                         Case(cin: 300, cout: 37, height: 5, width: 7, activation: .relu, kind: 3)]

    func testCPUFusesTheResidualAddOnEveryISA() throws {
        var random = SeededRandom(seed: 41)
        func values(_ n: Int, _ scale: Float = 1) -> [Float] {
            (0..<n).map { _ in Float(Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale }
        }
        for c in cases {
            let inShape = NetworkGraph.Shape(channels: c.cin, height: c.height, width: c.width)
            let outShape = NetworkGraph.Shape(channels: c.cout, height: c.height, width: c.width)
            let weights = values(c.cout * c.cin, 4 / Float(c.cin).squareRoot()), bias = values(c.cout)
            let input = values(inShape.elementCount, 2), addend = values(outShape.elementCount, 2)
            let constants = ModelConstants(values: [weights, bias])
            for variant in ["steps", "operands swapped", "in place", "quantised"] {
                // The input and the convolution's output in the pool, the addend and the sum in
                // the result buffer, which the run downloads.
                var pool = PoolLayout()
                let x = pool.place(inShape, input), sum = pool.place(outShape)
                let other = ExecutionPlan.Region(buffer: .result, offset: 0, shape: outShape)
                let output = variant == "in place" ? other : .init(buffer: .result, offset: outShape.elementCount, shape: outShape)
                let quantize: NetworkGraph.FakeQuantize? = variant == "quantised" ? .int8(scale: 0.05, zeroPoint: 3) : nil
                let conv = ExecutionPlan.Conv2D(input: x, output: sum, weights: 0, bias: 1, kernelHeight: 1, kernelWidth: 1,
                                                strideY: 1, strideX: 1, padding: .zero, groups: 1, activation: c.activation)
                let add = variant == "operands swapped"
                    ? ExecutionPlan.Add(a: other, b: sum, output: output, activation: .identity, quantize: quantize)
                    : ExecutionPlan.Add(a: sum, b: other, output: output, activation: .identity, quantize: quantize)
                let shape = ExecutionPlan.DenseShape(channels: 1, height: 1, width: 1)
                let plan = ExecutionPlan(steps: [.conv2d(conv), .add(add)],
                                         bufferFloats: [.pool: pool.values.count, .result: 2 * outShape.elementCount],
                                         inputShape: shape, output: .result, outputShape: shape, constants: constants)
                XCTAssertEqual(CPUConv2D.kind(conv), c.kind)
                XCTAssertNotNil(ExecutionPlan.fusableResidualAdd(conv, .add(add)))
                let label = "\(c.cin)->\(c.cout) \(c.height)x\(c.width), \(variant)"
                let result = addend + [Float](repeating: .nan, count: outShape.elementCount)
                let reference = Self.reference(c, weights: weights, bias: bias, input: input, addend: addend, quantize: quantize)
                try InstructionSet.forEachSupported { isa in
                    func run(fusing: Bool) throws -> [Float] {
                        let backend = CPUBackend(weights: [])
                        backend.fusesResidualAdds = fusing
                        let out = try backend.run(plan, inputs: [.pool: pool.values, .result: result], normParameters: [],
                                                  affine: nil, outputs: [.result])[.result]!
                        XCTAssertEqual(backend.fusedAddRuns, fusing ? 1 : 0, "\(label) on \(isa)")
                        return Array(out[output.offset..<output.offset + output.floatCount])
                    }
                    let fused = try run(fusing: true), steps = try run(fusing: false)
                    XCTAssertEqual(fused, steps, "\(label) on \(isa): the fused add against the two steps")
                    let worst = zip(fused, reference).map { Double(abs($0 - $1)) }.max() ?? .infinity
                    XCTAssertLessThanOrEqual(worst, quantize.map { Double($0.scale) * 1.001 } ?? 1e-4, "\(label) on \(isa)")
                }
            }
        }
    }

    /// The fusion is not taken when the convolution's output is read later, quantised, or the
    /// add has an activation or writes over the convolution's input.
    func testNotFusedWhenTheEpilogueCannotBeTheAdd() throws {
        let shape = NetworkGraph.Shape(channels: 8, height: 4, width: 4)
        var pool = PoolLayout()
        let x = pool.place(shape), sum = pool.place(shape), other = pool.place(shape), out = pool.place(shape)
        let conv = ExecutionPlan.Conv2D(input: x, output: sum, weights: 0, bias: nil, kernelHeight: 1, kernelWidth: 1,
                                        strideY: 1, strideX: 1, padding: .zero, groups: 1, activation: .identity)
        let add = ExecutionPlan.Add(a: sum, b: other, output: out, activation: .identity)
        XCTAssertNotNil(ExecutionPlan.fusableResidualAdd(conv, .add(add)))
        var quantised = conv
        quantised.quantize = .int8(scale: 0.1, zeroPoint: 0)
        XCTAssertNil(ExecutionPlan.fusableResidualAdd(quantised, .add(add)))
        var relu = add
        relu.activation = .relu
        XCTAssertNil(ExecutionPlan.fusableResidualAdd(conv, .add(relu)))
        var overInput = add
        overInput.output = x
        XCTAssertNil(ExecutionPlan.fusableResidualAdd(conv, .add(overInput)))
        var twice = add
        twice.b = sum
        XCTAssertNil(ExecutionPlan.fusableResidualAdd(conv, .add(twice)))
        var strided = conv
        strided.strideX = 2
        XCTAssertNil(ExecutionPlan.fusableResidualAdd(strided, .add(add)))

        // Liveness of the convolution's output after the add: read by a later step, or
        // overwritten first (in two pieces) and then read.
        let shape1 = ExecutionPlan.DenseShape(channels: 1, height: 1, width: 1)
        func plan(_ later: [ExecutionPlan.Step]) -> ExecutionPlan {
            ExecutionPlan(steps: [.conv2d(conv), .add(add)] + later, bufferFloats: [.pool: pool.values.count],
                          inputShape: shape1, output: .result, outputShape: shape1, constants: nil)
        }
        let half = NetworkGraph.Shape(channels: 4, height: 4, width: 4)
        let low = ExecutionPlan.Region(buffer: .pool, offset: sum.offset, shape: half)
        let high = ExecutionPlan.Region(buffer: .pool, offset: sum.offset + half.elementCount, shape: half)
        let readSum = ExecutionPlan.Step.activation(.init(input: sum, output: out, function: .relu))
        XCTAssertFalse(plan([]).reads(sum, after: 1, downloading: [.result]))
        XCTAssertTrue(plan([]).reads(sum, after: 1, downloading: [.pool]))
        XCTAssertTrue(plan([readSum]).reads(sum, after: 1, downloading: [.result]))
        let writeLow = ExecutionPlan.Step.activation(.init(input: other.channels(0..<4), output: low, function: .relu))
        let writeHigh = ExecutionPlan.Step.activation(.init(input: other.channels(4..<8), output: high, function: .relu))
        XCTAssertTrue(plan([writeLow, readSum]).reads(sum, after: 1, downloading: [.result]))
        XCTAssertFalse(plan([writeLow, writeHigh, readSum]).reads(sum, after: 1, downloading: [.result]))
    }

    /// float64: the convolution, its activation, the addend, the add's fake quantisation
    /// (round half to even, the zero point's shifted integer range).
    private static func reference(_ c: Case, weights: [Float], bias: [Float], input: [Float], addend: [Float],
                                  quantize: NetworkGraph.FakeQuantize?) -> [Float] {
        let plane = c.height * c.width
        var out = [Float](repeating: 0, count: c.cout * plane)
        for co in 0..<c.cout {
            for p in 0..<plane {
                var s = Double(bias[co])
                for k in 0..<c.cin { s += Double(weights[co * c.cin + k]) * Double(input[k * plane + p]) }
                switch c.activation.kind {
                case .identity: break
                case .relu: s = max(0, s)
                case .gelu: s = 0.5 * s * (1 + erf(s / 2.0.squareRoot()))
                default: preconditionFailure("no reference for \(c.activation)")
                }
                s += Double(addend[co * plane + p])
                if let q = quantize {
                    let scale = Double(q.scale), zero = Double(q.zeroPoint)
                    let level = min(max((s / scale).rounded(.toNearestOrEven) + zero, -128), 127)
                    s = (level - zero) * scale
                }
                out[co * plane + p] = Float(s)
            }
        }
        return out
    }
}
