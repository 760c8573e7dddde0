import CKernels
import XCTest
@testable import GPUStyle

/// One-step plans for the graph convolution fixtures (tools/make_conv2d_fixtures.py, torch
/// references in float64), shared by the CPU and Vulkan tests.
enum Conv2DFixtures {
    static func names(prefix: String) throws -> [String] { try Fixtures.names(in: "ops/conv2d", prefix: prefix) }

    /// `plan` (one `Conv2D` step, as `conv2d` makes it) with that step's output fake-quantised by `q`.
    static func quantizing(_ plan: ExecutionPlan, by q: NetworkGraph.FakeQuantize) -> ExecutionPlan {
        guard case .conv2d(var step) = plan.steps[0] else { preconditionFailure("not a conv2d plan") }
        step.quantize = q
        return ExecutionPlan(steps: [.conv2d(step)], bufferFloats: plan.bufferFloats, inputShape: plan.inputShape,
                             output: plan.output, outputShape: plan.outputShape, constants: plan.constants)
    }

    /// The fixture as a plan with one `Conv2D` step: constants [weight, bias?, slopes?]; the
    /// tensors in `.input` and `.result`, or (`inPool`) both in `.pool` at nonzero offsets.
    static func conv2d(_ t: [String: NamedTensor], inPool: Bool)
        -> (plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], output: ExecutionPlan.Region) {
        let input = t["input"]!, weight = t["weight"]!, expected = t["output"]!
        let p = t["params"]!.values
        var values = [weight.values]
        func constant(_ name: String) -> Int? {
            guard let tensor = t[name] else { return nil }
            values.append(tensor.values)
            return values.count - 1
        }
        let bias = constant("bias"), slopes = constant("slopes")
        let activation = NetworkGraph.ActivationFunction(Activation(rawValue: UInt32(p[7]))!, alpha: p[8], beta: p[9],
                                                         slopes: slopes)
        let inShape = shape(input), outShape = shape(expected)
        let (inRegion, outRegion, floats) = regions(inShape, outShape, inPool: inPool)
        let step = ExecutionPlan.Conv2D(input: inRegion, output: outRegion, weights: 0, bias: bias,
                                        kernelHeight: weight.shape[2], kernelWidth: weight.shape[3],
                                        strideY: Int(p[0]), strideX: Int(p[1]),
                                        padding: .init(top: Int(p[2]), left: Int(p[3]), bottom: Int(p[4]), right: Int(p[5])),
                                        groups: Int(p[6]), activation: activation)
        return plan(.conv2d(step), input: input.values, inRegion, outRegion, floats, ModelConstants(values: values))
    }

    static func transposed(_ t: [String: NamedTensor], inPool: Bool)
        -> (plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], output: ExecutionPlan.Region) {
        let input = t["input"]!, expected = t["output"]!
        var values = [t["weight"]!.values]
        func constant(_ name: String) -> Int? {
            guard let tensor = t[name] else { return nil }
            values.append(tensor.values)
            return values.count - 1
        }
        let bias = constant("bias"), slopes = constant("slopes")
        let p = t["params"]?.values ?? [0, 0, 0]
        let activation = NetworkGraph.ActivationFunction(Activation(rawValue: UInt32(p[0]))!, alpha: p[1], beta: p[2],
                                                         slopes: slopes)
        let (inRegion, outRegion, floats) = regions(shape(input), shape(expected), inPool: inPool)
        let step = ExecutionPlan.TransposedConv2D(input: inRegion, output: outRegion, weights: 0, bias: bias,
                                                  activation: activation)
        return plan(.transposedConv2d(step), input: input.values, inRegion, outRegion, floats, ModelConstants(values: values))
    }

    static func shape(_ tensor: NamedTensor) -> NetworkGraph.Shape {
        .init(channels: tensor.shape[0], height: tensor.shape[1], width: tensor.shape[2])
    }

    /// In the pool the input starts at 64 floats and the output after it (256-byte aligned, as
    /// GraphLowering places tensors), with floats to spare before and after each.
    private static func regions(_ inShape: NetworkGraph.Shape, _ outShape: NetworkGraph.Shape, inPool: Bool)
        -> (ExecutionPlan.Region, ExecutionPlan.Region, [ExecutionPlan.Buffer: Int]) {
        guard inPool else {
            return (.init(buffer: .input, offset: 0, shape: inShape), .init(buffer: .result, offset: 0, shape: outShape),
                    [.input: inShape.elementCount, .result: outShape.elementCount])
        }
        let inOffset = 64, outOffset = roundUp(inOffset + inShape.elementCount + 1, 64)
        return (.init(buffer: .pool, offset: inOffset, shape: inShape), .init(buffer: .pool, offset: outOffset, shape: outShape),
                [.pool: outOffset + outShape.elementCount + 64])
    }

    private static func plan(_ step: ExecutionPlan.Step, input: [Float], _ inRegion: ExecutionPlan.Region,
                             _ outRegion: ExecutionPlan.Region, _ floats: [ExecutionPlan.Buffer: Int], _ constants: ModelConstants)
        -> (plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], output: ExecutionPlan.Region) {
        var buffer = [Float](repeating: 0, count: floats[inRegion.buffer]!)
        if inRegion.buffer == .pool {
            // Whatever lies around the tensors must not leak into the result.
            for i in buffer.indices { buffer[i] = Float(i % 7) - 3 }
        }
        buffer.replaceSubrange(inRegion.offset..<inRegion.offset + input.count, with: input)
        let s = outRegion.shape
        let plan = ExecutionPlan(steps: [step], bufferFloats: floats,
                                 inputShape: .init(channels: inRegion.channels, height: inRegion.height, width: inRegion.width),
                                 output: outRegion.buffer, outputShape: .init(channels: s.channels, height: s.height, width: s.width),
                                 constants: constants)
        return (plan, [inRegion.buffer: buffer], outRegion)
    }

    /// Runs a one-step plan and returns the output region's values.
    static func run(_ backend: NetworkBackend,
                    _ made: (plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], output: ExecutionPlan.Region)) throws -> [Float] {
        let out = try backend.run(made.plan, inputs: made.inputs, normParameters: [], affine: nil, outputs: [made.output.buffer])
        return Array(out[made.output.buffer]![made.output.offset..<made.output.offset + made.output.floatCount])
    }

    /// Float32 sums of up to 1280 products in another order than torch's float64 differ by a
    /// few ulps of the largest partial sums: 1e-4 of the output's scale (at least 1) is ~100x
    /// that and still far below any indexing or padding mistake (which changes values by O(1)).
    static func assertClose(_ got: [Float], _ expected: NamedTensor, _ label: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.count, expected.values.count, label, file: file, line: line)
        let scale = max(1, expected.values.map(abs).max() ?? 0)
        var worst = (difference: Float(0), index: 0)
        for (i, (g, w)) in zip(got, expected.values).enumerated() {
            let d = abs(g - w)
            if !(d <= worst.difference) { worst = (d.isNaN ? .infinity : d, i) }
        }
        XCTAssertLessThanOrEqual(worst.difference, 1e-4 * scale,
                                 "\(label): worst at \(worst.index): got \(got[worst.index]), want \(expected.values[worst.index])",
                                 file: file, line: line)
    }
}

final class Conv2DTests: XCTestCase {
    func testFixturesCoverTheCases() throws {
        let names = try Conv2DFixtures.names(prefix: "conv2d_")
        XCTAssertEqual(names.count, 52, "\(names)")
    }

    func testCPUMatchesTorchOnEveryISA() throws {
        var isas: [String] = []
        try InstructionSet.forEachSupported { _ in
            let isa = String(cString: gs_conv2d_isa())
            isas.append(isa)
            for name in try Conv2DFixtures.names(prefix: "conv2d_") {
                let t = try Fixtures.tensors(name)
                let got = try Conv2DFixtures.run(CPUBackend(weights: []), Conv2DFixtures.conv2d(t, inPool: false))
                Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on \(isa)")
            }
        }
        XCTAssertTrue(isas.contains("portable"), "\(isas)")
    }

    /// The small-plane fixtures run the small-map kernel (kind 3), whose task is one block of 32
    /// output channels over the whole map: one task per block, no empty ones.
    func testSmallPlaneFixturesRunTheSmallMapKernelOneTaskPerBlock() throws {
        for name in ["conv2d_pointwise_small_plane_256_36", "conv2d_pointwise_small_plane_300_40"] {
            let plan = Conv2DFixtures.conv2d(try Fixtures.tensors("ops/conv2d/\(name).gpsw"), inPool: false).plan
            guard case .conv2d(let step) = plan.steps[0] else { return XCTFail("\(name): not a conv2d step") }
            var p = CPUConv2D.parameters(step)
            XCTAssertEqual(gs_conv2d_kind(&p), 3, name)
            XCTAssertEqual(Int(gs_conv2d_tasks(&p)), (step.output.channels + 31) / 32, name)
        }
        // MobileNetV2's 320->1280 on a 7x7 map (49 pixels, several micro-kernel runs per block).
        var head = gs_conv2d_params()
        (head.in_channels, head.in_height, head.in_width) = (320, 7, 7)
        (head.out_channels, head.out_height, head.out_width) = (1280, 7, 7)
        (head.kernel_height, head.kernel_width, head.stride_y, head.stride_x, head.groups) = (1, 1, 1, 1, 1)
        XCTAssertEqual(gs_conv2d_kind(&head), 3)
        XCTAssertEqual(gs_conv2d_tasks(&head), 40)
    }

    /// Dense 3x3 convolutions at stride 1 and 2 run the direct kernel (kind 5), one task per
    /// output row, and those at stride 1 padded by 1 with 16+ channels and 64+ columns Winograd's
    /// F(4x4, 3x3) (kind 6), one task per row of 4x4 tiles; their fixtures (checked on every ISA
    /// by testCPUMatchesTorchOnEveryISA) do.
    func testThreeByThreeFixturesRunTheDirectAndWinogradKernels() throws {
        let winograd = ["ops/conv2d/conv2d_direct_s1_24_20.gpsw", "ops/conv2d/conv2d_winograd_16_18_wide.gpsw"]
        for name in try Conv2DFixtures.names(prefix: "conv2d_direct_") + Conv2DFixtures.names(prefix: "conv2d_winograd_")
            + ["ops/conv2d/conv2d_3x3_s1_p1.gpsw", "ops/conv2d/conv2d_3x3_s2_same_upper.gpsw"] {
            let plan = Conv2DFixtures.conv2d(try Fixtures.tensors(name), inPool: false).plan
            guard case .conv2d(let step) = plan.steps[0] else { return XCTFail("\(name): not a conv2d step") }
            var p = CPUConv2D.parameters(step)
            let isWinograd = winograd.contains(name)
            XCTAssertEqual(gs_conv2d_kind(&p), isWinograd ? 6 : 5, name)
            XCTAssertEqual(Int(gs_conv2d_tasks(&p)), isWinograd ? (step.output.height + 3) / 4 : step.output.height, name)
        }
        // RetinaFace's widest context-module layer at 2560x1440 (64 -> 64 on 180x320) is Winograd, at
        // stride 2 direct; with 128 channels on a map 4096 wide the direct kernel would copy 6.3 MB
        // of rows per thread (over its 4 MB bound): a GEMM, as are grouped and 5x5 convolutions.
        var p = gs_conv2d_params()
        (p.in_channels, p.in_height, p.in_width, p.out_channels, p.out_height, p.out_width) = (64, 180, 320, 64, 180, 320)
        (p.kernel_height, p.kernel_width, p.stride_y, p.stride_x, p.pad_top, p.pad_left, p.groups) = (3, 3, 1, 1, 1, 1, 1)
        XCTAssertEqual(gs_conv2d_kind(&p), 6)
        (p.stride_y, p.stride_x, p.out_height, p.out_width) = (2, 2, 90, 160)
        XCTAssertEqual(gs_conv2d_kind(&p), 5)
        (p.in_channels, p.in_width, p.out_width) = (128, 4096, 2048)
        XCTAssertEqual(gs_conv2d_kind(&p), 0)
        for name in ["conv2d_groups2", "conv2d_5x5_p2"] {
            let plan = Conv2DFixtures.conv2d(try Fixtures.tensors("ops/conv2d/\(name).gpsw"), inPool: false).plan
            guard case .conv2d(let step) = plan.steps[0] else { return XCTFail("\(name): not a conv2d step") }
            var q = CPUConv2D.parameters(step)
            XCTAssertEqual(gs_conv2d_kind(&q), 0, name)
        }
    }

    func testCPURegionsInThePool() throws {
        for name in try Conv2DFixtures.names(prefix: "conv2d_") {
            let t = try Fixtures.tensors(name)
            let got = try Conv2DFixtures.run(CPUBackend(weights: []), Conv2DFixtures.conv2d(t, inPool: true))
            Conv2DFixtures.assertClose(got, t["output"]!, "\(name) in the pool")
        }
    }

    /// Every fixture in the pool on every instruction set leaves every float of the pool outside
    /// its output as it was. The depthwise kernel's last rows of 1-3 columns stored a whole
    /// 8-float vector and wrote up to 7 floats past the plane (the face mesh's 6x6 -> 3x3 layer,
    /// run as the parts of an inverted residual block, overwrote the first floats of a tensor
    /// another branch still read).
    func testCPUWritesNothingOutsideTheOutputOnEveryISA() throws {
        try InstructionSet.forEachSupported { isa in
            for name in try Conv2DFixtures.names(prefix: "conv2d_") {
                let made = Conv2DFixtures.conv2d(try Fixtures.tensors(name), inPool: true)
                let before = made.inputs[.pool]!
                let after = try CPUBackend(weights: []).run(made.plan, inputs: made.inputs, normParameters: [], affine: nil,
                                                            outputs: [.pool])[.pool]!
                let output = made.output.offset..<made.output.offset + made.output.floatCount
                let changed = after.indices.filter { !output.contains($0) && after[$0] != before[$0] }
                XCTAssertEqual(changed, [], "\(name) on \(isa): floats outside the output \(output) changed")
            }
        }
    }

    /// The packed weights are made once per constants object, not per run.
    func testCPUPreparesWeightsOncePerConstants() throws {
        let t = try Fixtures.tensors("ops/conv2d/conv2d_pointwise_24_144.gpsw")
        let backend = CPUBackend(weights: [])
        let made = Conv2DFixtures.conv2d(t, inPool: false)
        for _ in 0..<3 { Conv2DFixtures.assertClose(try Conv2DFixtures.run(backend, made), t["output"]!, "repeat") }
        XCTAssertEqual(backend.graphWeights.count, 1)
        let again = Conv2DFixtures.conv2d(t, inPool: false)  // the same values in a new ModelConstants
        Conv2DFixtures.assertClose(try Conv2DFixtures.run(backend, again), t["output"]!, "new constants")
        XCTAssertEqual(backend.graphWeights.count, 2)
    }

    /// A MobileNetV2 inverted residual block (expand 1x1 + ReLU6, depthwise 3x3 + ReLU6,
    /// project 1x1) through GraphLowering: activation nodes fused into the convolutions, the
    /// intermediate tensors in the pool. The residual add is another step's (not run here).
    static func mobileNetBlock(_ t: [String: NamedTensor]) throws -> ExecutionPlan {
        let names = ["expand_weight", "expand_bias", "depthwise_weight", "depthwise_bias", "project_weight", "project_bias"]
        let constants = ModelConstants(values: names.map { t[$0]!.values }, names: names)
        func conv(_ weights: Int, _ out: Int, kernel: Int, groups: Int = 1) -> NetworkGraph.Operation {
            .convolution(.init(weights: weights, bias: weights + 1, outputChannels: out, kernelHeight: kernel, kernelWidth: kernel,
                               padding: .init(kernel / 2), groups: groups))
        }
        let graph = NetworkGraph(input: 0, output: 5, tensorCount: 6, nodes: [
            .init(name: "expand", operation: conv(0, 48, kernel: 1), inputs: [0], output: 1),
            .init(name: "expand relu6", operation: .activation(.relu6), inputs: [1], output: 2),
            .init(name: "depthwise", operation: conv(2, 48, kernel: 3, groups: 48), inputs: [2], output: 3),
            .init(name: "depthwise relu6", operation: .activation(.relu6), inputs: [3], output: 4),
            .init(name: "project", operation: conv(4, 8, kernel: 1), inputs: [4], output: 5),
        ], constants: constants)
        // The parts as separate steps (InvertedResidualTests runs the block as one).
        let plan = try GraphLowering.lower(graph, input: Conv2DFixtures.shape(t["input"]!), fusingBlocks: false)
        XCTAssertEqual(plan.steps.map(\.opName), ["conv2d", "conv2d depthwise", "conv2d"], "activations fused")
        return plan
    }

    func testMobileNetBlockThroughGraphLowering() throws {
        let t = try Fixtures.tensors("ops/conv2d/mobilenet_block.gpsw")
        let plan = try Self.mobileNetBlock(t)
        let out = try CPUBackend(weights: []).run(plan, inputs: [.input: t["input"]!.values], normParameters: [],
                                                  affine: nil, outputs: [.result])
        Conv2DFixtures.assertClose(out[.result]!, t["output"]!, "block on the CPU")
    }
}

final class Conv2DVulkanTests: VulkanTestCase {
    func testVulkanMatchesTorch() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        for name in try Conv2DFixtures.names(prefix: "conv2d_") {
            let t = try Fixtures.tensors(name)
            for inPool in [false, true] {
                let got = try Conv2DFixtures.run(backend, Conv2DFixtures.conv2d(t, inPool: inPool))
                Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on Vulkan\(inPool ? " in the pool" : "")")
            }
        }
    }

    func testVulkanMobileNetBlockThroughGraphLowering() throws {
        let t = try Fixtures.tensors("ops/conv2d/mobilenet_block.gpsw")
        let plan = try Conv2DTests.mobileNetBlock(t)
        let backend = try VulkanBackend(context: context, weights: [])
        let out = try backend.run(plan, inputs: [.input: t["input"]!.values], normParameters: [], affine: nil, outputs: [.result])
        Conv2DFixtures.assertClose(out[.result]!, t["output"]!, "block on Vulkan")
    }
}
