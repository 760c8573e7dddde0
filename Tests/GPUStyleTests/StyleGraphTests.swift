import XCTest
@testable import GPUStyle

/// The style network as a `NetworkGraph` lowered by `GraphLowering`: the plan must be, step for
/// step and buffer for buffer, the one written out by hand from `StyleNetwork.layers` below
/// (the builder the engine used before the runtime existed), so the style network runs exactly
/// the kernels it ran before; and graphs that do not fit the normalised blocks are errors
/// naming the node.
final class StyleGraphTests: XCTestCase {
    private static let model = Result { try StyleModel.bundled() }

    /// The hand-written plan: per layer pad → convolution → statistics → apply, outputs in the
    /// first of a, b, c not holding the layer's input or the open residual block's input.
    static func referencePlan(height: Int, width: Int) -> ExecutionPlan {
        typealias Plan = ExecutionPlan
        var steps: [Plan.Step] = []
        var sizes: [Plan.Buffer: Int] = [:]
        func use(_ buffer: Plan.Buffer, _ floats: Int) { sizes[buffer] = max(sizes[buffer] ?? 0, floats) }
        let inputShape = Plan.DenseShape(channels: 3, height: height, width: width)
        use(.input, inputShape.floatCount)
        var current = Plan.Buffer.input
        var shape = inputShape
        var blockInput: Plan.Buffer?
        for (index, layer) in StyleNetwork.layers.enumerated() {
            let pad = Plan.Pad(source: current, destination: .padded, sourceShape: shape, upsample: layer.upsample,
                               padding: layer.padding, split: layer.stride == 2)
            use(.padded, pad.floatCount)
            steps.append(.pad(pad))
            if layer.name.hasPrefix("res.") && !layer.closesResidualBlock { blockInput = current }
            let busy = Set([current, blockInput].compactMap { $0 })
            let destination = [Plan.Buffer.a, .b, .c].first { !busy.contains($0) }!
            let convolution = Plan.Convolution(layer: index, input: pad, destination: destination,
                                               outputChannels: layer.outputChannels, kernel: layer.kernel, stride: layer.stride)
            use(destination, convolution.outputShape.floatCount)
            steps.append(.convolution(convolution))
            steps.append(.instanceNormStatistics(.init(layer: index, source: destination, shape: convolution.outputShape)))
            steps.append(.instanceNormApply(.init(layer: index, source: destination, destination: destination,
                                          shape: convolution.outputShape, activation: layer.activation,
                                          residual: layer.closesResidualBlock ? blockInput : nil)))
            if layer.closesResidualBlock { blockInput = nil }
            current = destination
            shape = convolution.outputShape
        }
        return ExecutionPlan(steps: steps, bufferFloats: sizes, inputShape: inputShape, output: current, outputShape: shape)
    }

    func testLoweredGraphIsTheHandWrittenPlan() throws {
        let model = try Self.model.get()
        for (height, width) in [(32, 32), (64, 96), (256, 256), (1080, 1920), (36, 500)] {
            let lowered = try model.plan(height: height, width: width)
            let reference = Self.referencePlan(height: height, width: width)
            // The lowering fuses pads into convolutions (`fusingPads`, FusedConvolutionTests): its
            // steps stand for the hand-written ones.
            let parts = lowered.steps.flatMap(\.parts)
            XCTAssertEqual(parts.count, 4 * StyleNetwork.layers.count)
            XCTAssertEqual(parts.map { String(describing: $0) }, reference.steps.map { String(describing: $0) },
                           "\(width)x\(height)")
            XCTAssertEqual(lowered.bufferFloats, reference.bufferFloats)
            XCTAssertEqual(lowered.output, reference.output)
            XCTAssertEqual(lowered.outputShape, reference.outputShape)
            XCTAssertEqual(lowered.inputShape, reference.inputShape)
        }
    }

    /// A run hands back the output image's floats, not the whole buffer it shares with the
    /// 32-channel maps (copying that into a fresh array cost 8,200 page faults per 512x512 image).
    func testRunsReturnTheOutputTensorOnly() throws {
        let plan = try Self.model.get().plan(height: 64, width: 96)
        XCTAssertEqual(plan.returnedFloats(plan.output), plan.outputShape.floatCount)
        XCTAssertLessThan(plan.outputShape.floatCount, plan.bufferFloats[plan.output]!)
        let model = try Self.model.get()
        let input = [Float](repeating: 0.5, count: plan.bufferFloats[.input]!)
        let output = try CPUBackend(weights: model.convolutions).run(plan, inputs: [.input: input],
                                                                      normParameters: model.normParameters(for: StyleMix(style: 0)))
        XCTAssertEqual(output.count, plan.outputShape.floatCount)
    }

    func testResidualBlocksReadTheirInputFromAnUntouchedSlot() throws {
        let plan = try Self.model.get().plan(height: 64, width: 64)
        let applies = plan.steps.flatMap(\.parts).compactMap { step -> ExecutionPlan.InstanceNormApply? in
            if case .instanceNormApply(let apply) = step { apply } else { nil }
        }
        XCTAssertEqual(applies.compactMap(\.residual).count, 6, "six residual blocks")
        for apply in applies { XCTAssertNotEqual(apply.residual, apply.destination) }
    }

    func testNormParametersFollowTheGraphsInstanceNorms() throws {
        let model = try Self.model.get()
        let mix = try StyleMix(parsing: "3:1,20:3")
        let table = model.normParameters(for: mix)
        XCTAssertEqual(table.count, StyleNetwork.layers.count * ExecutionPlan.parametersPerLayer)
        // Independent arithmetic for layer 14 (expand.1, 4 channels), channel 2.
        let layer = 14, channels = StyleNetwork.layers[layer].outputChannels, c = 2
        let gamma = 0.25 * model.constant(.gamma, layer: layer)[3 * channels + c] + 0.75 * model.constant(.gamma, layer: layer)[20 * channels + c]
        let beta = 0.25 * model.constant(.beta, layer: layer)[3 * channels + c] + 0.75 * model.constant(.beta, layer: layer)[20 * channels + c]
        XCTAssertEqual(table[layer * ExecutionPlan.parametersPerLayer + c], gamma, accuracy: 1e-6)
        XCTAssertEqual(table[layer * ExecutionPlan.parametersPerLayer + StyleNetwork.maxChannels + c], beta, accuracy: 1e-6)
    }

    func testTooSmallInputNamesTheLayer() throws {
        XCTAssertThrowsError(try Self.model.get().plan(height: 4, width: 64)) { error in
            XCTAssertTrue("\(error)".contains("node contract.0 (conv2d): reflection padding"), "\(error)")
        }
    }

    func testGraphsThatAreNotNormalisedBlocksAreErrors() throws {
        let graph = try Self.model.get().graph
        var biased = graph
        guard case .convolution(var c) = biased.nodes[0].operation else { return XCTFail() }
        c.bias = 0
        biased.nodes[0].operation = .convolution(c)
        XCTAssertThrowsError(try GraphLowering.lower(biased, input: .init(channels: 3, height: 64, width: 64))) { error in
            XCTAssertTrue("\(error)".hasPrefix("node contract.0 (conv2d)"), "\(error)")
        }
        var unnormalised = graph
        unnormalised.nodes[1].operation = .activation(.relu)
        XCTAssertThrowsError(try GraphLowering.lower(unnormalised, input: .init(channels: 3, height: 64, width: 64))) { error in
            XCTAssertTrue("\(error)".contains("instance_norm"), "\(error)")
        }
        var misweighted = graph
        misweighted.nodes[1].operation = .instanceNorm(.init(gamma: 0, beta: 0, styles: 1))
        XCTAssertThrowsError(try GraphLowering.lower(misweighted, input: .init(channels: 3, height: 64, width: 64))) { error in
            XCTAssertTrue("\(error)".contains("contract.0.norm (instance_norm): gamma has"), "\(error)")
        }
    }

    func testTheGraphRoundTripsThroughAModelFileHeader() throws {
        let graph = try Self.model.get().graph
        let nodes = try JSONDecoder().decode([NetworkGraph.Node].self, from: JSONEncoder().encode(graph.nodes))
        XCTAssertEqual(nodes, graph.nodes)
    }
}

extension StyleGraphTests {
    /// The graph evaluated formula by formula (`GraphReference`, Double) against the CPU and
    /// Vulkan kernels running the lowered plan: the graph is the network the kernels run.
    func testKernelsComputeWhatTheGraphSays() throws {
        let model = try Self.model.get()
        let (height, width) = (36, 44)
        var rng = SeededRandom(seed: 11)
        let input = (0..<3 * height * width).map { _ in Float(rng.index(below: 1000)) / 1000 }
        let mix = try StyleMix(parsing: "5:1,17:1")
        let expected = try GraphReference.run(model.graph, input: .init(shape: .init(channels: 3, height: height, width: width),
                                                                         values: input), mix: mix.weights)
        var backends: [(String, NetworkBackend)] = [("cpu", CPUBackend(weights: model.convolutions))]
        if let context = try? VulkanTesting.context() {
            backends.append(("vulkan", try VulkanBackend(context: context, weights: model.convolutions)))
        }
        for (name, backend) in backends {
            let output = try OpHarness.runNetwork(backend, input, height: height, width: width, mix: mix, model: model)
            XCTAssertEqual(output.count, expected.values.count)
            let worst = zip(output, expected.values).map { abs($0 - $1) }.max() ?? .infinity
            XCTAssertLessThan(worst, 1e-4, name)
        }
    }
}
