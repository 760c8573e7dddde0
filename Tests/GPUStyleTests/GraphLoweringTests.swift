import XCTest
@testable import GPUStyle

/// The lowering of graphs into plans: fusion, step shapes, and the pool placement (no two tensors
/// a step needs at once may share floats; the pool stays near the liveness lower bound).
final class GraphLoweringTests: XCTestCase {
    typealias Shape = NetworkGraph.Shape

    /// A MobileNetV2-like chain with a residual add, made of random constants.
    static func invertedResidualGraph(channels: Int = 8, expansion: Int = 6) -> NetworkGraph {
        var constants: [[Float]] = []
        var rng = SeededRandom(seed: 7)
        func constant(_ count: Int) -> Int {
            constants.append((0..<count).map { _ in Float(rng.index(below: 1 << 20)) / Float(1 << 20) - 0.5 })
            return constants.count - 1
        }
        let wide = channels * expansion
        let nodes: [NetworkGraph.Node] = [
            .init(name: "stem", operation: .convolution(.init(weights: constant(channels * 3 * 9), bias: constant(channels),
                  outputChannels: channels, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2,
                  padding: .init(1))), inputs: [0], output: 1),
            .init(name: "stem.relu6", operation: .activation(.relu6), inputs: [1], output: 2),
            .init(name: "expand", operation: .convolution(.init(weights: constant(wide * channels), bias: constant(wide),
                  outputChannels: wide, kernelHeight: 1, kernelWidth: 1, activation: .relu6)), inputs: [2], output: 3),
            .init(name: "depthwise", operation: .convolution(.init(weights: constant(wide * 9), bias: constant(wide),
                  outputChannels: wide, kernelHeight: 3, kernelWidth: 3, padding: .init(1), groups: wide,
                  activation: .relu6)), inputs: [3], output: 4),
            .init(name: "project", operation: .convolution(.init(weights: constant(channels * wide), bias: constant(channels),
                  outputChannels: channels, kernelHeight: 1, kernelWidth: 1)), inputs: [4], output: 5),
            .init(name: "residual", operation: .add(.identity), inputs: [2, 5], output: 6),
            .init(name: "pool", operation: .globalAveragePool, inputs: [6], output: 7),
            .init(name: "classifier", operation: .fullyConnected(weights: constant(10 * channels), bias: constant(10), outputs: 10),
                  inputs: [7], output: 8),
        ]
        return NetworkGraph(input: 0, output: 8, tensorCount: 9, nodes: nodes, constants: ModelConstants(values: constants))
    }

    func testActivationIsFusedIntoTheConvolutionBeforeIt() throws {
        let fused = GraphLowering.fusingActivations(Self.invertedResidualGraph())
        XCTAssertEqual(fused.nodes.count, 7)
        guard case .convolution(let stem) = fused.nodes[0].operation else { return XCTFail("stem is not a convolution") }
        XCTAssertEqual(stem.activation, .relu6)
        XCTAssertEqual(fused.nodes[0].output, 2, "the fused node writes the activation's tensor")
        XCTAssertEqual(try fused.shapes(input: Shape(channels: 3, height: 16, width: 16))[8], Shape(channels: 10, height: 1, width: 1))
    }

    func testAnActivationWhoseInputIsReadElsewhereIsNotFused() throws {
        var graph = Self.invertedResidualGraph()
        // The residual add now reads the stem's pre-activation output too.
        graph.nodes[5].inputs = [1, 5]
        let fused = GraphLowering.fusingActivations(graph)
        XCTAssertEqual(fused.nodes.count, 8)
        guard case .convolution(let stem) = fused.nodes[0].operation else { return XCTFail() }
        XCTAssertEqual(stem.activation, .identity)
    }

    func testStepsAndPoolPlacement() throws {
        for fusing in [false, true] {
            let plan = try GraphLowering.lower(Self.invertedResidualGraph(), input: Shape(channels: 3, height: 16, width: 16),
                                               fusingBlocks: fusing)
            let block = fusing ? ["inverted_residual"] : ["conv2d", "conv2d depthwise", "conv2d", "add"]
            XCTAssertEqual(plan.steps.map(\.opName), ["conv2d"] + block + ["global_average_pool", "conv2d"])
            guard case .conv2d(let classifier) = plan.steps.last! else { return XCTFail() }
            XCTAssertEqual([classifier.kernelHeight, classifier.kernelWidth], [1, 1], "a fully connected layer is a whole-input convolution")
            XCTAssertEqual(classifier.output.buffer, .result)
            guard case .conv2d(let stem) = plan.steps[0] else { return XCTFail() }
            XCTAssertEqual(stem.input.buffer, .input)
            XCTAssertEqual(stem.output.shape, Shape(channels: 8, height: 8, width: 8))

            // Every pair of pool regions a step touches is disjoint, and the last writer of a
            // region's floats before a read is the step that made that tensor; a fused step's
            // parts as the Vulkan backend runs them, each with the block's input live too (the
            // CPU backend's fused pass reads the input while it writes the output).
            var owner: [Int: String] = [:]  // pool float -> the step (part) that wrote it
            for (index, step) in plan.steps.enumerated() {
                let whole = step.graphRegions!
                for (n, part) in step.parts.enumerated() {
                    let (reads, writes) = part.graphRegions!
                    let name = "step \(index).\(n)"
                    let pooled = (reads + [writes] + whole.reads).filter { $0.buffer == .pool }
                    for (i, a) in pooled.enumerated() {
                        XCTAssertEqual(a.offset % GraphLowering.offsetAlignment, 0)
                        XCTAssertLessThanOrEqual(a.offset + a.floatCount, plan.bufferFloats[.pool]!)
                        for b in pooled[(i + 1)...] where a != b {
                            XCTAssertTrue(a.offset + a.floatCount <= b.offset || b.offset + b.floatCount <= a.offset,
                                          "\(name) binds overlapping pool regions")
                        }
                    }
                    for read in reads where read.buffer == .pool {
                        let writers = Set((read.offset..<read.offset + read.floatCount).map { owner[$0] })
                        XCTAssertEqual(writers.count, 1, "\(name) reads floats overwritten since they were made")
                    }
                    if writes.buffer == .pool {
                        for float in writes.offset..<writes.offset + writes.floatCount { owner[float] = name }
                    }
                }
            }
            // The stem output (8x8x8 = 512) is live across the block with the 48-channel maps
            // (3072 each): at most the two wide maps and the stem output (plus alignment); the
            // fused step keeps the block's input apart from its output and, on Vulkan, the
            // projection apart from both (512 each).
            XCTAssertLessThanOrEqual(plan.bufferFloats[.pool]!, 3072 * 2 + 512 * (fusing ? 3 : 1) + 5 * GraphLowering.offsetAlignment)
        }
    }

    /// A chain whose inner tensor is read elsewhere, or whose depthwise pads by reflection, is
    /// not a block; a block without the add ends at the projection.
    func testBlockFusionNeedsAPrivateChain() throws {
        var shared = Self.invertedResidualGraph()
        shared.nodes.append(.init(name: "tap", operation: .activation(.relu), inputs: [4], output: 9))
        shared.tensorCount = 10
        XCTAssertFalse(try GraphLowering.lower(shared, input: Shape(channels: 3, height: 16, width: 16)).steps
            .contains { $0.opName == "inverted_residual" }, "the depthwise output is read by another node")

        var reflect = Self.invertedResidualGraph()
        guard case .convolution(var dw) = reflect.nodes[3].operation else { return XCTFail() }
        dw.paddingMode = .reflect
        reflect.nodes[3].operation = .convolution(dw)
        XCTAssertEqual(try GraphLowering.lower(reflect, input: Shape(channels: 3, height: 16, width: 16)).steps.map(\.opName),
                       ["conv2d", "conv2d", "pad2d", "conv2d depthwise", "conv2d", "add", "global_average_pool", "conv2d"])

        var noAdd = Self.invertedResidualGraph()
        noAdd.nodes[5].inputs = [5, 5]  // the add no longer takes the block's input
        let plan = try GraphLowering.lower(noAdd, input: Shape(channels: 3, height: 16, width: 16))
        XCTAssertEqual(plan.steps.map(\.opName), ["conv2d", "inverted_residual", "add", "global_average_pool", "conv2d"])
        guard case .invertedResidual(let block) = plan.steps[1] else { return XCTFail() }
        XCTAssertNil(block.residual)
        XCTAssertNotNil(block.expand)
    }

    func testReflectPaddedConvolutionGetsItsOwnPadStep() throws {
        let graph = NetworkGraph(input: 0, output: 1, tensorCount: 2, nodes: [
            .init(name: "conv", operation: .convolution(.init(weights: 0, bias: nil, outputChannels: 2, kernelHeight: 3,
                  kernelWidth: 3, padding: .init(1), paddingMode: .reflect)), inputs: [0], output: 1),
        ], constants: ModelConstants(values: [[Float](repeating: 1, count: 2 * 3 * 9)]))
        let plan = try GraphLowering.lower(graph, input: Shape(channels: 3, height: 5, width: 7))
        XCTAssertEqual(plan.steps.map(\.opName), ["pad2d", "conv2d"])
        guard case .conv2d(let conv) = plan.steps[1] else { return XCTFail() }
        XCTAssertTrue(conv.padding.isZero)
        XCTAssertEqual(conv.input.shape, Shape(channels: 3, height: 7, width: 9))
        XCTAssertEqual(conv.output.shape, Shape(channels: 2, height: 5, width: 7))
    }

    func testConcatWritesEachInputIntoItsChannelSlice() throws {
        let graph = NetworkGraph(input: 0, output: 3, tensorCount: 4, nodes: [
            .init(name: "a", operation: .activation(.relu), inputs: [0], output: 1),
            .init(name: "b", operation: .maxPool(.init(kernel: 1, stride: 1)), inputs: [0], output: 2),
            .init(name: "cat", operation: .concat, inputs: [1, 2], output: 3),
        ], constants: ModelConstants(values: []))
        let plan = try GraphLowering.lower(graph, input: Shape(channels: 3, height: 4, width: 4))
        XCTAssertEqual(plan.steps.map(\.opName), ["activation", "max_pool", "copy", "copy"])
        guard case .copy(let first) = plan.steps[2], case .copy(let second) = plan.steps[3] else { return XCTFail() }
        XCTAssertEqual(first.output, .init(buffer: .result, offset: 0, shape: Shape(channels: 3, height: 4, width: 4)))
        XCTAssertEqual(second.output, .init(buffer: .result, offset: 48, shape: Shape(channels: 3, height: 4, width: 4)))
    }

    func testShapeErrorsNameTheNode() {
        var graph = Self.invertedResidualGraph()
        graph.nodes[5].inputs = [2, 4]  // add: 8 channels + the 48-channel depthwise output
        XCTAssertThrowsError(try graph.shapes(input: Shape(channels: 3, height: 16, width: 16))) { error in
            XCTAssertEqual("\(error)", "node residual (add): adds 8x8x8 to 48x8x8")
        }
        var wrongWeights = Self.invertedResidualGraph()
        guard case .convolution(var c) = wrongWeights.nodes[2].operation else { return XCTFail() }
        c.outputChannels = 47
        wrongWeights.nodes[2].operation = .convolution(c)
        XCTAssertThrowsError(try wrongWeights.shapes(input: Shape(channels: 3, height: 16, width: 16))) { error in
            XCTAssertTrue("\(error)".contains("node expand") && "\(error)".contains("weights"), "\(error)")
        }
    }
}

final class ModelFileTests: XCTestCase {
    func testRoundTripKeepsGraphMetadataAndConstants() throws {
        let graph = GraphLoweringTests.invertedResidualGraph()
        let metadata = ModelFile.Metadata(name: "tiny", input: .init(channels: 3, height: 16, width: 16),
                                          labels: (0..<10).map { "class \($0)" }, mean: [0.5, 0.5, 0.5], std: [0.25, 0.25, 0.25])
        let half: Set<Int> = [graph.constants.count - 2]
        let data = try ModelFile(graph: graph, metadata: metadata, halfConstants: half).serialized()
        let read = try ModelFile(data: data)
        XCTAssertEqual(read.metadata, metadata)
        XCTAssertEqual(read.graph.nodes, graph.nodes)
        XCTAssertEqual(read.halfConstants, half)
        for index in 0..<graph.constants.count {
            let expected = half.contains(index) ? graph.constants[index].map { Float(Float16($0)) } : graph.constants[index]
            XCTAssertEqual(read.graph.constants[index], expected, "constant \(index)")
        }
        XCTAssertTrue(String(decoding: data.prefix(4000), as: UTF8.self).contains("\"relu6\""), "activations are written by name")
    }

    func testDamagedFilesAreErrorsNotCrashes() throws {
        let data = try ModelFile(graph: GraphLoweringTests.invertedResidualGraph(), metadata: .init(name: "tiny")).serialized()
        for cut in [0, 3, 11, 40, data.count / 2, data.count - 1] {
            XCTAssertThrowsError(try ModelFile(data: data.prefix(cut)), "cut at \(cut)")
        }
        var wrongVersion = data
        wrongVersion[4] = 9
        XCTAssertThrowsError(try ModelFile(data: wrongVersion)) { XCTAssertTrue("\($0)".contains("version"), "\($0)") }
        var rng = SeededRandom(seed: 3)
        for _ in 0..<50 {
            var noisy = data
            for _ in 0..<8 { noisy[rng.index(below: min(noisy.count, 3000))] = UInt8(rng.index(below: 256)) }
            _ = try? ModelFile(data: noisy)  // must not trap
        }
    }
}
