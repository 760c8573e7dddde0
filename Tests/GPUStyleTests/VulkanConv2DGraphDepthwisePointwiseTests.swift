import XCTest
@testable import GPUStyle

/// conv2d_graph_dwpw.comp (VulkanConv2DGraphDepthwisePointwise.swift): an inverted residual
/// block's depthwise convolution fused into its projection (and residual add) on Vulkan,
/// against the CPU path running the same plan (an independent C kernel) and against the
/// Vulkan backend recording the block's parts one by one, on random blocks: vec4 and scalar
/// views, odd sizes, stride 2, with and without the expansion and the add, other activations,
/// and projections whose weights take more than one dispatch. The torch fixtures of
/// ops/inverted_residual run through it in InvertedResidualVulkanTests and
/// `testTorchFixturesRunFused`.
final class VulkanConv2DGraphDepthwisePointwiseTests: VulkanTestCase {
    struct Block {
        var cin, mid, cout, height, width, stride: Int
        var expand = true
        var residual = false
        var depthwiseActivation: Activation = .relu6
        var projectActivation: Activation = .identity
    }

    /// The block as graph nodes with random weights, lowered into one inverted residual step.
    static func plan(_ b: Block, seed: UInt64) throws -> (ExecutionPlan, input: [Float], outputFloats: Int) {
        var random = SeededRandom(seed: seed)
        func values(_ n: Int, _ scale: Double) -> [Float] {
            (0..<n).map { _ in Float((Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale) }
        }
        var tensors: [[Float]] = []
        func constant(_ v: [Float]) -> Int { tensors.append(v); return tensors.count - 1 }
        func activation(_ kind: Activation, channels: Int) -> NetworkGraph.ActivationFunction {
            kind == .prelu ? .init(.prelu, slopes: constant(values(channels, 0.5))) : .init(kind)
        }
        var nodes: [NetworkGraph.Node] = []
        var tensor = 0
        func add(_ operation: NetworkGraph.Operation, _ inputs: [Int]) {
            tensor += 1
            nodes.append(.init(name: "n\(tensor)", operation: operation, inputs: inputs, output: tensor))
        }
        let mid = b.expand ? b.mid : b.cin
        if b.expand {
            add(.convolution(.init(weights: constant(values(mid * b.cin, 0.5)), bias: constant(values(mid, 1)),
                                   outputChannels: mid, kernelHeight: 1, kernelWidth: 1, activation: .relu6)), [tensor])
        }
        add(.convolution(.init(weights: constant(values(mid * 9, 0.6)), bias: constant(values(mid, 1)), outputChannels: mid,
                               kernelHeight: 3, kernelWidth: 3, strideY: b.stride, strideX: b.stride, padding: .init(1),
                               groups: mid, activation: activation(b.depthwiseActivation, channels: mid))), [tensor])
        add(.convolution(.init(weights: constant(values(b.cout * mid, 0.3)), bias: constant(values(b.cout, 1)),
                               outputChannels: b.cout, kernelHeight: 1, kernelWidth: 1,
                               activation: activation(b.projectActivation, channels: b.cout))), [tensor])
        if b.residual { add(.add(.identity), [tensor, 0]) }
        let graph = NetworkGraph(input: 0, output: tensor, tensorCount: tensor + 1, nodes: nodes,
                                 constants: ModelConstants(values: tensors))
        let plan = try GraphLowering.lower(graph, input: .init(channels: b.cin, height: b.height, width: b.width))
        let oh = (b.height - 1) / b.stride + 1, ow = (b.width - 1) / b.stride + 1
        return (plan, values(b.cin * b.height * b.width, 2), b.cout * oh * ow)
    }

    private func run(_ backend: NetworkBackend, _ plan: ExecutionPlan, _ input: [Float], _ count: Int) throws -> [Float] {
        Array(try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result])[.result]!.prefix(count))
    }

    /// The labels of the dispatches a profiled run of `plan` recorded.
    private func dispatchLabels(_ backend: VulkanBackend, _ plan: ExecutionPlan, _ input: [Float]) throws -> [String] {
        try backend.setProfiling(true)
        defer { try? backend.setProfiling(false) }
        _ = try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result])
        return backend.lastTimings!.dispatches.map(\.label)
    }

    func testFusedBlocksMatchTheCPUPathAndTheParts() throws {
        let blocks: [(String, Block)] = [
            ("vec4 views, expansion and add", Block(cin: 16, mid: 64, cout: 16, height: 20, width: 24, stride: 1, residual: true)),
            ("odd map, a partial block group", Block(cin: 8, mid: 40, cout: 24, height: 13, width: 11, stride: 1)),
            ("stride 2, vec4 input", Block(cin: 12, mid: 48, cout: 40, height: 24, width: 28, stride: 2)),
            ("stride 2, odd map", Block(cin: 8, mid: 24, cout: 20, height: 15, width: 17, stride: 2)),
            ("no expansion, hard swish, PReLU", Block(cin: 32, mid: 32, cout: 16, height: 16, width: 16, stride: 1, expand: false,
                                                      depthwiseActivation: .hardSwish, projectActivation: .prelu)),
            ("projection over two dispatches, add", Block(cin: 320, mid: 576, cout: 320, height: 8, width: 8, stride: 1,
                                                          residual: true)),
        ]
        let cpu = CPUBackend(weights: [])
        let fused = try VulkanBackend(context: context, weights: [])
        fused.depthwisePointwise = .wherever
        let parts = try VulkanBackend(context: context, weights: [])
        parts.depthwisePointwise = .never
        for (n, (name, b)) in blocks.enumerated() {
            let (plan, input, count) = try Self.plan(b, seed: UInt64(40 + n))
            guard plan.steps.count == 1, case .invertedResidual(let block) = plan.steps[0] else {
                XCTFail("\(name): not lowered to one block: \(plan.steps.map(\.opName))")
                continue
            }
            XCTAssertTrue(fused.fusesDepthwiseProjection(block), name)
            let labels = try dispatchLabels(fused, plan, input)
            XCTAssertEqual(labels.filter { $0.contains("dwpw") }.count, b.cin == 320 ? 2 : 1, "\(name): \(labels)")
            XCTAssertFalse(labels.contains { $0.contains("groups \(block.depthwise.groups)") }, "\(name): the depthwise ran alone")
            let got = try run(fused, plan, input, count)
            VulkanConv2DGraphTests.assertMatchesCPUPath(got, try run(cpu, plan, input, count), quantum: 0, "\(name) against the CPU path")
            VulkanConv2DGraphTests.assertMatchesCPUPath(got, try run(parts, plan, input, count), quantum: 0,
                                                        "\(name) against the parts on Vulkan")
        }
    }

    func testTorchFixturesRunFused() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        backend.depthwisePointwise = .wherever
        for name in try InvertedResidualFixtures.names() {
            let t = try Fixtures.tensors(name)
            let plan = try InvertedResidualFixtures.plan(t)
            guard case .invertedResidual(let block) = plan.steps[0] else { return XCTFail(name) }
            // Projections on maps under 16 pixels run conv2d_graph.comp, so those blocks run as parts.
            let plane = block.project.output.height * block.project.output.width
            XCTAssertEqual(backend.fusesDepthwiseProjection(block), plane >= VulkanBackend.minimumUniformWeightsPlane, name)
            Conv2DFixtures.assertClose(try InvertedResidualFixtures.run(backend, plan, t), t["output"]!, "\(name) fused on Vulkan")
        }
    }

    /// Fake quantisation is never fused: such blocks run as their parts.
    func testQuantizedBlocksRunAsParts() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        backend.depthwisePointwise = .wherever
        let (plan, _, _) = try Self.plan(Block(cin: 8, mid: 16, cout: 8, height: 8, width: 8, stride: 1), seed: 7)
        guard case .invertedResidual(var block) = plan.steps[0] else { return XCTFail("not one block") }
        XCTAssertTrue(backend.fusesDepthwiseProjection(block))
        block.depthwise.quantize = .init(scale: 0.1, zeroPoint: 0, low: 0, high: 255)
        XCTAssertFalse(backend.fusesDepthwiseProjection(block))
        let quantized = ExecutionPlan(steps: [.invertedResidual(block)], bufferFloats: plan.bufferFloats, inputShape: plan.inputShape,
                                      output: plan.output, outputShape: plan.outputShape, outputFloats: plan.outputFloats,
                                      constants: plan.constants)
        XCTAssertEqual(backend.splittingFusedSteps(quantized).steps.map(\.opName), ["conv2d", "conv2d depthwise", "conv2d"])
    }

    /// `gpustyle profile` keeps the fused part of a block as one step, its FLOPs both convolutions'.
    func testProfileKeepsTheFusedStep() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        backend.depthwisePointwise = .wherever
        let (plan, _, _) = try Self.plan(Block(cin: 16, mid: 64, cout: 16, height: 20, width: 24, stride: 1, residual: true), seed: 3)
        let split = backend.splittingFusedSteps(plan)
        XCTAssertEqual(split.steps.map(\.opName), ["conv2d", "inverted_residual"])
        guard case .invertedResidual(let block) = split.steps[1] else { return XCTFail("no fused step") }
        XCTAssertNil(block.expand)
        XCTAssertEqual(backend.kernelNote(for: split.steps[1], in: split), "[dwpw]")
        XCTAssertEqual(split.steps[1].cost.flops, 2 * Double(block.depthwise.multiplyAdds + block.project.multiplyAdds))
    }
}

/// The fused block part against its parts on MobileNetV2's block shapes (classify at 224x224):
/// device time of the depthwise + projection (+ add) dispatches, fastest of `rounds`
/// alternating runs each. Timing only: set GPUSTYLE_DWPW_TIMING=1.
final class VulkanConv2DGraphDepthwisePointwiseTimingTests: VulkanTestCase {
    func testFusedAgainstPartsOnMobileNetBlocks() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_DWPW_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_DWPW_TIMING=1")
        }
        typealias Block = VulkanConv2DGraphDepthwisePointwiseTests.Block
        let shapes: [Block] = [
            Block(cin: 32, mid: 32, cout: 16, height: 112, width: 112, stride: 1, expand: false),
            Block(cin: 16, mid: 96, cout: 24, height: 112, width: 112, stride: 2),
            Block(cin: 24, mid: 144, cout: 24, height: 56, width: 56, stride: 1, residual: true),
            Block(cin: 24, mid: 144, cout: 32, height: 56, width: 56, stride: 2),
            Block(cin: 32, mid: 192, cout: 32, height: 28, width: 28, stride: 1, residual: true),
            Block(cin: 32, mid: 192, cout: 64, height: 28, width: 28, stride: 2),
            Block(cin: 64, mid: 384, cout: 64, height: 14, width: 14, stride: 1, residual: true),
            Block(cin: 64, mid: 384, cout: 96, height: 14, width: 14, stride: 1),
            Block(cin: 96, mid: 576, cout: 96, height: 14, width: 14, stride: 1, residual: true),
            Block(cin: 96, mid: 576, cout: 160, height: 14, width: 14, stride: 2),
            Block(cin: 160, mid: 960, cout: 160, height: 7, width: 7, stride: 1, residual: true),
            Block(cin: 160, mid: 960, cout: 320, height: 7, width: 7, stride: 1),
        ]
        let rounds = Int(ProcessInfo.processInfo.environment["GPUSTYLE_DWPW_ROUNDS"] ?? "7")!
        let fused = try VulkanBackend(context: context, weights: [])
        fused.depthwisePointwise = .wherever
        let parts = try VulkanBackend(context: context, weights: [])
        parts.depthwisePointwise = .never
        try fused.setProfiling(true)
        try parts.setProfiling(true)
        /// Device seconds of the run's dispatches after the expansion's.
        func time(_ backend: VulkanBackend, _ plan: ExecutionPlan, _ input: [Float], expand: Bool) throws -> Double {
            _ = try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result])
            return backend.lastTimings!.dispatches.dropFirst(expand ? 1 : 0).reduce(0) { $0 + $1.nanoseconds } * 1e-9
        }
        func pays(_ backend: VulkanBackend, _ plan: ExecutionPlan) -> Bool {
            guard case .invertedResidual(let block) = plan.steps[0] else { return false }
            backend.depthwisePointwise = .wherePaying
            defer { backend.depthwisePointwise = .wherever }
            return backend.fusesDepthwiseProjection(block)
        }
        for b in shapes {
            let (plan, input, _) = try VulkanConv2DGraphDepthwisePointwiseTests.plan(b, seed: 1)
            var line = "\(b.cin)->\(b.mid)->\(b.cout) \(b.height)x\(b.width)/\(b.stride):"
            var parted = Double.infinity, together = Double.infinity
            for _ in 0..<rounds {
                parted = min(parted, try time(parts, plan, input, expand: b.expand))
                together = min(together, try time(fused, plan, input, expand: b.expand))
            }
            line += String(format: " parts %.3f ms, fused %.3f ms (%.2fx)", 1000 * parted, 1000 * together, together / parted)
                + (pays(fused, plan) ? " (fused by default)" : "")
            print(line)
        }
    }
}
