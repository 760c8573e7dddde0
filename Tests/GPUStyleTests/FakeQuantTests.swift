import XCTest
import CKernels
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

    // MARK: Fusion at lowering (GraphLowering.fusingFakeQuantization)

    /// Every value of a grid, quantised again with the same quantiser, comes back bit for bit
    /// (the proof in FakeQuantLowering.swift): int8 and uint8 grids of the transform's scales
    /// and of awkward ones, each value made by gs_fake_quant itself.
    func testFakeQuantizationOfItsOwnGridIsTheIdentity() {
        let scales: [Float] = [0.003921568859368563, 0.04377799108624458, 0.24499788880348206, 0.019597379490733147,
                               1e-6, 0.1, 1 / 3, 7.3, 1000]
        for scale in scales {
            for (low, high, zeroPoints) in [(-128, 127, [-128, -26, 0, 9, 127]), (0, 255, [0, 5, 128, 255])] {
                for zeroPoint in zeroPoints {
                    let lo = Float(low - zeroPoint), hi = Float(high - zeroPoint)
                    let k = (Int(lo)...Int(hi)).map { Float($0) * scale }
                    var grid = [Float](repeating: 0, count: k.count), again = grid
                    gs_fake_quant(k, &grid, Int64(k.count), scale, Float(zeroPoint), Float(low), Float(high))
                    gs_fake_quant(grid, &again, Int64(k.count), scale, Float(zeroPoint), Float(low), Float(high))
                    XCTAssertEqual(again.map(\.bitPattern), grid.map(\.bitPattern), "scale \(scale) zero point \(zeroPoint)")
                }
            }
        }
    }

    /// A graph of `nodes` on random constants (values in [-1, 1) times `spread`).
    private static func graph(_ nodes: [NetworkGraph.Node], sizes: [Int], output: Int, spread: Float = 1) -> NetworkGraph {
        var random = SeededRandom(seed: 39)
        let constants = sizes.map { n in (0..<n).map { _ in spread * (Float(random.index(below: 1 << 20)) / Float(1 << 19) - 1) } }
        let tensors = nodes.reduce(0) { max($0, $1.output, $1.inputs.max() ?? 0) } + 1
        return NetworkGraph(input: 0, output: output, tensorCount: tensors, nodes: nodes, constants: ModelConstants(values: constants))
    }

    private static func input(_ shape: NetworkGraph.Shape, seed: UInt64) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<shape.elementCount).map { _ in Float(random.index(below: 1 << 20)) / Float(1 << 18) - 2 }
    }

    private static let int8 = NetworkGraph.FakeQuantize.int8(scale: 0.05, zeroPoint: 3)
    private static let uint8 = NetworkGraph.FakeQuantize.uint8(scale: 0.0371, zeroPoint: 100)

    /// Runs the plans fused and unfused on every backend (the CPU on every instruction set) and
    /// checks every output value is identical, bit for bit.
    private func assertFusedEqualsUnfused(_ graph: NetworkGraph, _ shape: NetworkGraph.Shape, _ label: String,
                                          fusedSteps: [String]? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let unfused = try GraphLowering.lower(graph, input: shape, fusingQuantization: false)
        let fused = try GraphLowering.lower(graph, input: shape)
        XCTAssertTrue(unfused.steps.contains { $0.opName == "fake_quant" }, label, file: file, line: line)
        if let fusedSteps { XCTAssertEqual(fused.steps.map(\.opName), fusedSteps, label, file: file, line: line) }
        let x = Self.input(shape, seed: 5)
        func compare(_ backend: NetworkBackend, _ name: String) throws {
            let a = try backend.run(unfused, inputs: [.input: x], normParameters: [], affine: nil, outputs: [.result])[.result]!
            let b = try backend.run(fused, inputs: [.input: x], normParameters: [], affine: nil, outputs: [.result])[.result]!
            XCTAssertEqual(a.count, b.count, "\(label) \(name)", file: file, line: line)
            let differing = zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count
            XCTAssertEqual(differing, 0, "\(label) \(name): values that differ", file: file, line: line)
            let grid = Set(b.map { ($0 / Self.int8.scale).rounded() }).count
            XCTAssertGreaterThan(grid, 1, "\(label) \(name): a constant output tests nothing", file: file, line: line)
        }
        try InstructionSet.forEachSupported { isa in try compare(CPUBackend(weights: []), "cpu \(isa)") }
        try forEachBackend { backend, name in if name != "cpu" { try compare(backend, name) } }
    }

    /// Fused into each convolution kernel (GEMM with im2col panels and 1x1, depthwise, GEMV,
    /// the small-map kernel), with and without its activation, into an add and an activation.
    func testFusedEpiloguesComputeWhatTheStepDid() throws {
        typealias Node = NetworkGraph.Node
        func conv(_ weights: Int, _ bias: Int, out: Int, k: Int, stride: Int = 1, pad: Int = 0, groups: Int = 1,
                  activation: NetworkGraph.ActivationFunction = .identity) -> NetworkGraph.Operation {
            .convolution(.init(weights: weights, bias: bias, outputChannels: out, kernelHeight: k, kernelWidth: k,
                               strideY: stride, strideX: stride, padding: .init(pad), groups: groups, activation: activation))
        }
        // 3x3 (im2col panels) with ReLU6, then 1x1 (rows straight from the map), odd sizes.
        let gemm = Self.graph([
            Node(name: "a", operation: conv(0, 1, out: 16, k: 3, pad: 1, activation: .relu6), inputs: [0], output: 1),
            Node(name: "a.q", operation: .fakeQuantize(Self.int8), inputs: [1], output: 2),
            Node(name: "b", operation: conv(2, 3, out: 12, k: 1), inputs: [2], output: 3),
            Node(name: "b.q", operation: .fakeQuantize(Self.uint8), inputs: [3], output: 4),
        ], sizes: [16 * 5 * 9, 16, 12 * 16, 12], output: 4)
        try assertFusedEqualsUnfused(gemm, .init(channels: 5, height: 9, width: 11), "gemm", fusedSteps: ["conv2d", "conv2d"])
        // Depthwise 3x3/2 with ReLU, then a whole-map kernel (GEMV) into a 1x1 output.
        let depthwise = Self.graph([
            Node(name: "dw", operation: conv(0, 1, out: 24, k: 3, stride: 2, pad: 1, groups: 24, activation: .relu), inputs: [0], output: 1),
            Node(name: "dw.q", operation: .fakeQuantize(Self.int8), inputs: [1], output: 2),
            Node(name: "fc", operation: conv(2, 3, out: 20, k: 5), inputs: [2], output: 3),
            Node(name: "fc.q", operation: .fakeQuantize(Self.int8), inputs: [3], output: 4),
        ], sizes: [24 * 9, 24, 20 * 24 * 25, 20], output: 4, spread: 0.5)
        try assertFusedEqualsUnfused(depthwise, .init(channels: 24, height: 10, width: 9), "depthwise, gemv",
                                     fusedSteps: ["conv2d depthwise", "conv2d"])
        // The small-map kernel (1x1, K >= 256 on 7x7), an add and a sigmoid (not fused into the
        // convolution: its input is read twice).
        let small = Self.graph([
            Node(name: "c", operation: conv(0, 1, out: 40, k: 1), inputs: [0], output: 1),
            Node(name: "c.q", operation: .fakeQuantize(Self.int8), inputs: [1], output: 2),
            Node(name: "s", operation: .activation(.init(.sigmoid)), inputs: [2], output: 3),
            Node(name: "s.q", operation: .fakeQuantize(Self.uint8), inputs: [3], output: 4),
            Node(name: "add", operation: .add(.identity), inputs: [2, 4], output: 5),
            Node(name: "add.q", operation: .fakeQuantize(Self.int8), inputs: [5], output: 6),
        ], sizes: [40 * 256, 40], output: 6, spread: 0.2)
        try assertFusedEqualsUnfused(small, .init(channels: 256, height: 7, width: 7), "small map, add, activation",
                                     fusedSteps: ["conv2d", "activation", "add"])
    }

    /// What is fused, dropped and kept: a quantisation whose input is read elsewhere, or follows
    /// a step with no epilogue, stays; the quantisation of a reflection or zero padding of a map
    /// on the same grid is dropped (0 is on every grid whose zero point is in its range, which
    /// NetworkGraph checks), of another grid kept.
    func testLoweringFusesDropsAndKeeps() throws {
        typealias Node = NetworkGraph.Node
        let conv = NetworkGraph.Operation.convolution(.init(weights: 0, bias: 1, outputChannels: 4, kernelHeight: 3, kernelWidth: 3,
                                                            activation: .relu))
        let other = NetworkGraph.FakeQuantize.int8(scale: 0.05, zeroPoint: 4)
        func graph(_ padMode: NetworkGraph.PaddingMode, _ first: NetworkGraph.FakeQuantize, _ second: NetworkGraph.FakeQuantize) -> NetworkGraph {
            Self.graph([
                Node(name: "c", operation: conv, inputs: [0], output: 1),
                Node(name: "c.q", operation: .fakeQuantize(first), inputs: [1], output: 2),
                Node(name: "pad", operation: .pad(.init(1), padMode), inputs: [2], output: 3),
                Node(name: "pad.q", operation: .fakeQuantize(second), inputs: [3], output: 4),
                Node(name: "c2", operation: conv, inputs: [4], output: 5),
            ], sizes: [4 * 4 * 9, 4], output: 5)
        }
        let shape = NetworkGraph.Shape(channels: 4, height: 8, width: 9)
        try assertFusedEqualsUnfused(graph(.reflect, Self.int8, Self.int8), shape, "reflect, same grid",
                                     fusedSteps: ["conv2d", "pad2d", "conv2d"])
        try assertFusedEqualsUnfused(graph(.zero, Self.int8, Self.int8), shape, "zero, same grid",
                                     fusedSteps: ["conv2d", "pad2d", "conv2d"])
        try assertFusedEqualsUnfused(graph(.reflect, Self.int8, other), shape, "reflect, another grid",
                                     fusedSteps: ["conv2d", "pad2d", "fake_quant", "conv2d"])

        // The convolution's output is read by the quantisation and by the add: not fused.
        let shared = Self.graph([
            Node(name: "c", operation: conv, inputs: [0], output: 1),
            Node(name: "c.q", operation: .fakeQuantize(Self.int8), inputs: [1], output: 2),
            Node(name: "add", operation: .add(.identity), inputs: [1, 2], output: 3),
        ], sizes: [4 * 4 * 9, 4], output: 3)
        try assertFusedEqualsUnfused(shared, shape, "read twice", fusedSteps: ["conv2d", "fake_quant", "add"])
        // After a step without an epilogue (the pooling) and of the graph's input: kept.
        let pooled = Self.graph([
            Node(name: "in.q", operation: .fakeQuantize(Self.int8), inputs: [0], output: 1),
            Node(name: "pool", operation: .globalAveragePool, inputs: [1], output: 2),
            Node(name: "pool.q", operation: .fakeQuantize(Self.int8), inputs: [2], output: 3),
        ], sizes: [], output: 3)
        try assertFusedEqualsUnfused(pooled, shape, "no epilogue", fusedSteps: ["fake_quant", "global_average_pool", "fake_quant"])
    }

    /// An inverted residual block quantised after each part and after its add (an int8 QDQ
    /// MobileNetV2's) lowers to one fused step, which the CPU runs fused only split by rows in
    /// NCHW, in strips of any height: every value as the parts one by one make it, on every
    /// instruction set; on a map too small for rows it runs the parts.
    func testQuantizedInvertedResidualBlockIsExact() throws {
        typealias Node = NetworkGraph.Node
        func conv(_ weights: Int, _ bias: Int, out: Int, k: Int, groups: Int = 1,
                  activation: NetworkGraph.ActivationFunction) -> NetworkGraph.Operation {
            .convolution(.init(weights: weights, bias: bias, outputChannels: out, kernelHeight: k, kernelWidth: k,
                               padding: .init(k / 2), groups: groups, activation: activation))
        }
        let q = [NetworkGraph.FakeQuantize.int8(scale: 0.031, zeroPoint: -128), .int8(scale: 0.047, zeroPoint: -128),
                 .int8(scale: 0.09, zeroPoint: 7), .int8(scale: 0.11, zeroPoint: -3)]
        let graph = Self.graph([
            Node(name: "in.q", operation: .fakeQuantize(q[3]), inputs: [0], output: 1),
            Node(name: "expand", operation: conv(0, 1, out: 48, k: 1, activation: .relu6), inputs: [1], output: 2),
            Node(name: "expand.q", operation: .fakeQuantize(q[0]), inputs: [2], output: 3),
            Node(name: "depthwise", operation: conv(2, 3, out: 48, k: 3, groups: 48, activation: .relu6), inputs: [3], output: 4),
            Node(name: "depthwise.q", operation: .fakeQuantize(q[1]), inputs: [4], output: 5),
            Node(name: "project", operation: conv(4, 5, out: 8, k: 1, activation: .identity), inputs: [5], output: 6),
            Node(name: "project.q", operation: .fakeQuantize(q[2]), inputs: [6], output: 7),
            Node(name: "add", operation: .add(.identity), inputs: [7, 1], output: 8),
            Node(name: "add.q", operation: .fakeQuantize(q[3]), inputs: [8], output: 9),
        ], sizes: [48 * 8, 48, 48 * 9, 48, 8 * 48, 8], output: 9, spread: 0.6)
        let shape = NetworkGraph.Shape(channels: 8, height: 29, width: 19)
        try assertFusedEqualsUnfused(graph, shape, "block", fusedSteps: ["fake_quant", "inverted_residual"])

        let unfused = try GraphLowering.lower(graph, input: shape, fusingQuantization: false)
        let fused = try GraphLowering.lower(graph, input: shape)
        let x = Self.input(shape, seed: 11)
        typealias Tuning = CPUInvertedResidual.Tuning
        let tunings: [(String, Tuning, fusedRuns: Int)] = [
            ("1-row strips", Tuning(minimumRowsPerThread: 1, stripRows: 1), 1),
            ("2-row strips", Tuning(minimumRowsPerThread: 1, stripRows: 2), 1),
            ("3-row strips", Tuning(minimumRowsPerThread: 1, stripRows: 3), 1),
            ("strips by cache size", Tuning(minimumRowsPerThread: 1), 1),
            ("too few rows per thread", Tuning(minimumRowsPerThread: 1000), ParallelFor.workers == 1 ? 1 : 0),
            ("parts", Tuning(minimumRowsPerThread: 1, channelParts: 0), 0),
        ]
        try InstructionSet.forEachSupported { isa in
            let expected = try CPUBackend(weights: []).run(unfused, inputs: [.input: x], normParameters: [], affine: nil,
                                                           outputs: [.result])[.result]!
            for (label, tuning, runs) in tunings {
                let backend = CPUBackend(weights: [])
                backend.invertedResidualTuning = tuning
                let got = try backend.run(fused, inputs: [.input: x], normParameters: [], affine: nil, outputs: [.result])[.result]!
                XCTAssertEqual(zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count, 0, "\(label), \(isa)")
                XCTAssertEqual(backend.fusedBlockRuns, runs, "\(label), \(isa)")
            }
        }
    }
}
