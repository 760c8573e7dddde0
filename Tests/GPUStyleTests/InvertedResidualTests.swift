import XCTest
@testable import GPUStyle

/// MobileNetV2's inverted residual block as one step (`ExecutionPlan.InvertedResidual`,
/// `CKernels/inverted_residual_body.inc`), against torch references in float64
/// (tools/make_conv2d_fixtures.py: odd sizes, stride 1 and 2, with and without the expansion
/// and the residual add).
enum InvertedResidualFixtures {
    static func names() throws -> [String] { try Fixtures.names(in: "ops/inverted_residual", prefix: "") }

    /// The fixture's block as graph nodes (expand, ReLU6, depthwise 3x3 padding 1, ReLU6,
    /// project [, add of the input]), lowered with or without fusing the block.
    static func plan(_ t: [String: NamedTensor], fusingBlocks: Bool = true) throws -> ExecutionPlan {
        let hasExpand = t["expand_weight"] != nil
        let input = Conv2DFixtures.shape(t["input"]!), output = Conv2DFixtures.shape(t["output"]!)
        let names = (hasExpand ? ["expand_weight", "expand_bias"] : []) + ["depthwise_weight", "depthwise_bias", "project_weight", "project_bias"]
        let constants = ModelConstants(values: names.map { t[$0]!.values }, names: names)
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let mid = t["depthwise_weight"]!.shape[0]
        let stride = t["stride"].map { Int($0.values[0]) } ?? 1
        func conv(_ name: String, _ out: Int, kernel: Int, stride: Int = 1, groups: Int = 1,
                  activation: NetworkGraph.ActivationFunction) -> NetworkGraph.Operation {
            .convolution(.init(weights: index[name + "_weight"]!, bias: index[name + "_bias"]!, outputChannels: out,
                               kernelHeight: kernel, kernelWidth: kernel, strideY: stride, strideX: stride,
                               padding: .init(kernel / 2), groups: groups, activation: activation))
        }
        var nodes: [NetworkGraph.Node] = []
        var tensor = 0
        func add(_ name: String, _ operation: NetworkGraph.Operation, _ inputs: [Int]) {
            tensor += 1
            nodes.append(.init(name: name, operation: operation, inputs: inputs, output: tensor))
        }
        if hasExpand { add("expand", conv("expand", mid, kernel: 1, activation: .relu6), [tensor]) }
        add("depthwise", conv("depthwise", mid, kernel: 3, stride: stride, groups: mid, activation: .relu6), [tensor])
        add("project", conv("project", output.channels, kernel: 1, activation: .identity), [tensor])
        let residual = input == output && stride == 1
        if residual { add("residual", .add(.identity), [tensor, 0]) }
        let graph = NetworkGraph(input: 0, output: tensor, tensorCount: tensor + 1, nodes: nodes, constants: constants)
        return try GraphLowering.lower(graph, input: input, fusingBlocks: fusingBlocks)
    }

    static func run(_ backend: NetworkBackend, _ plan: ExecutionPlan, _ t: [String: NamedTensor]) throws -> [Float] {
        let out = try backend.run(plan, inputs: [.input: t["input"]!.values], normParameters: [], affine: nil,
                                  outputs: [.result])
        return Array(out[.result]!.prefix(t["output"]!.values.count))
    }
}

final class InvertedResidualTests: XCTestCase {
    func testFixturesCoverTheCases() throws {
        let names = try InvertedResidualFixtures.names()
        XCTAssertEqual(names.count, 6, "\(names)")
    }

    func testLoweringMakesOneStepOfTheBlock() throws {
        for name in try InvertedResidualFixtures.names() {
            let t = try Fixtures.tensors(name)
            let plan = try InvertedResidualFixtures.plan(t)
            XCTAssertEqual(plan.steps.map(\.opName), ["inverted_residual"], name)
            guard case .invertedResidual(let block) = plan.steps[0] else { return XCTFail(name) }
            XCTAssertEqual(block.expand != nil, t["expand_weight"] != nil, name)
            XCTAssertEqual(block.residual != nil, t["input"]!.shape == t["output"]!.shape, name)
            XCTAssertEqual(block.input.buffer, .input)
            XCTAssertEqual(block.output.buffer, .result)
            // The parts' intermediate tensors are in the pool, each apart from the one it is
            // made from (the Vulkan backend runs the parts one by one on them).
            let inner = [block.expand?.output, block.depthwise.output, block.residual == nil ? nil : block.project.output]
                .compactMap { $0 }
            for (a, b) in zip(inner, inner.dropFirst()) {
                XCTAssertTrue(a.offset + a.floatCount <= b.offset || b.offset + b.floatCount <= a.offset,
                              "\(name): consecutive intermediate tensors overlap")
            }
            for a in inner {
                XCTAssertEqual(a.buffer, .pool, name)
                XCTAssertLessThanOrEqual(a.offset + a.floatCount, plan.bufferFloats[.pool]!, name)
            }
            let unfused = try InvertedResidualFixtures.plan(t, fusingBlocks: false)
            XCTAssertEqual(unfused.steps.map(\.opName), block.parts.map(\.opName), name)
        }
    }

    /// The fused pass split by rows in strips of 1, 2 and 3 rows (the expanded rows shared by
    /// consecutive strips are kept, the padding moves at the first and last strips) and in
    /// strips by cache size, in NCHW and channel-blocked (whose expansion's last pixel tile may
    /// run past the input; a block without an expansion runs the NCHW rows there); split by channels into 2 and 3 parts (partial sums of the
    /// projection added at the end; more parts than 8-channel blocks leave a part empty);
    /// channel-blocked in 1, 2 and 3 parts (parts that own half of a 32-channel weight block,
    /// outputs fewer than 16, pixel counts that end in a full, a half and a padded micro-kernel
    /// run); and the
    /// parts one by one; on every twin.
    func testCPUMatchesTorchOnEveryISA() throws {
        typealias Tuning = CPUInvertedResidual.Tuning
        let channels = Tuning(minimumRowsPerThread: Int.max, blockedPixels: 0)
        var twoParts = channels, threeParts = channels
        twoParts.channelParts = 2
        threeParts.channelParts = 3
        func blocked(_ parts: Int) -> Tuning { Tuning(channelParts: parts, blockedPixels: .max, blockedWithoutExpansion: true) }
        func rows(_ strip: Int?, blocked: Bool) -> Tuning {
            Tuning(minimumRowsPerThread: 1, stripRows: strip, blockedPixels: 0, blockedRows: blocked)
        }
        let tunings: [(String, Tuning, fused: Bool)] = [
            ("rows, 1-row strips", rows(1, blocked: false), true),
            ("rows, 2-row strips", rows(2, blocked: false), true),
            ("rows, 3-row strips", rows(3, blocked: false), true),
            ("rows, strips by cache size", rows(nil, blocked: false), true),
            ("blocked rows, 1-row strips", rows(1, blocked: true), true),
            ("blocked rows, 2-row strips", rows(2, blocked: true), true),
            ("blocked rows, 3-row strips", rows(3, blocked: true), true),
            ("blocked rows, strips by cache size", rows(nil, blocked: true), true),
            ("channels, 2 parts", twoParts, true),
            ("channels, 3 parts", threeParts, true),
            ("blocked, 1 part", blocked(1), true),
            ("blocked, 2 parts", blocked(2), true),
            ("blocked, 3 parts", blocked(3), true),
            ("parts", .init(minimumRowsPerThread: Int.max, channelParts: 0, blockedPixels: 0), false),
        ]
        try InstructionSet.forEachSupported { isa in
            for name in try InvertedResidualFixtures.names() {
                let t = try Fixtures.tensors(name)
                let plan = try InvertedResidualFixtures.plan(t)
                for (label, tuning, fused) in tunings {
                    let backend = CPUBackend(weights: [])
                    backend.invertedResidualTuning = tuning
                    let got = try InvertedResidualFixtures.run(backend, plan, t)
                    Conv2DFixtures.assertClose(got, t["output"]!, "\(name), \(label), \(isa)")
                    XCTAssertEqual(backend.fusedBlockRuns, fused ? 1 : 0, "\(name), \(label)")
                }
            }
        }
    }

    /// With the default tuning every block on a small map runs channel-blocked; with
    /// `Tuning.blockedWithoutExpansion` off, one without an expansion runs as its parts (a
    /// depthwise step and a 1x1 convolution); the same results as torch either way.
    func testSmallMapsWithoutAnExpansionRunFusedOrAsTheirParts() throws {
        for blockedWithoutExpansion in [true, false] {
            for (name, hasExpansion) in [("expand_residual_7x13", true), ("expand_s2_3x5", true), ("no_expand_9x5", false)] {
                let t = try Fixtures.tensors("ops/inverted_residual/\(name).gpsw")
                let backend = CPUBackend(weights: [])
                backend.invertedResidualTuning.blockedWithoutExpansion = blockedWithoutExpansion
                Conv2DFixtures.assertClose(try InvertedResidualFixtures.run(backend, try InvertedResidualFixtures.plan(t), t),
                                           t["output"]!, name)
                XCTAssertEqual(backend.fusedBlockRuns, hasExpansion || blockedWithoutExpansion ? 1 : 0, name)
            }
        }
    }

    /// The torch block of Conv2DTests (10x12, 48 channels) and its residual output, fused by rows
    /// in NCHW and channel-blocked.
    func testMobileNetBlockFixture() throws {
        let t = try Fixtures.tensors("ops/conv2d/mobilenet_block.gpsw")
        var tensors = t
        tensors["output"] = t["residual"]!
        let plan = try InvertedResidualFixtures.plan(tensors)
        guard case .invertedResidual(let block) = plan.steps[0] else { return XCTFail() }
        XCTAssertNotNil(block.residual)
        for blocked in [false, true] {
            let backend = CPUBackend(weights: [])
            backend.invertedResidualTuning = .init(minimumRowsPerThread: 1, stripRows: 4, blockedPixels: 0, blockedRows: blocked)
            Conv2DFixtures.assertClose(try InvertedResidualFixtures.run(backend, plan, tensors), t["residual"]!,
                                       "residual block, blocked rows \(blocked)")
        }
    }
}

final class InvertedResidualVulkanTests: VulkanTestCase {
    func testVulkanMatchesTorch() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        for name in try InvertedResidualFixtures.names() {
            let t = try Fixtures.tensors(name)
            let got = try InvertedResidualFixtures.run(backend, InvertedResidualFixtures.plan(t), t)
            Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on Vulkan")
        }
    }
}
