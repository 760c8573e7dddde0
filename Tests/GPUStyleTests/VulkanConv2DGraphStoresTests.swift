import XCTest
@testable import GPUStyle

/// The "_u64" builds of the 1x1, Winograd and general graph convolutions (each vec4 of an
/// output run stored as two 64-bit words into a storage buffer, VulkanConv2DGraphStores.swift)
/// and their texel-store fallback on a device without shaderInt64 (`ComputeOptions.Fault.noInt64`),
/// each against the CPU path (itself checked against torch by Conv2DTests) with
/// VulkanConv2DGraphTests' tolerance: whole-plane and row runs, input-channel chunks that continue
/// the stored partial sums (ACCUMULATE), PReLU, regions in the pool, and the 1x1 convolution's
/// fused residual add with the convolution's own output kept (KEEP_SUM).
final class VulkanConv2DGraphStoresTests: VulkanTestCase {
    private struct Layer {
        var cin, cout, height, width, kernel, stride: Int
        var activation: Activation = .relu6
    }

    private func tensors(_ l: Layer, seed: UInt64) -> [String: NamedTensor] {
        var random = SeededRandom(seed: seed)
        func values(_ n: Int, _ scale: Double) -> [Float] {
            (0..<n).map { _ in Float((Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale) }
        }
        let pad = l.kernel / 2
        let oh = (l.height + 2 * pad - l.kernel) / l.stride + 1, ow = (l.width + 2 * pad - l.kernel) / l.stride + 1
        var t = [
            "input": NamedTensor(name: "input", shape: [l.cin, l.height, l.width], values: values(l.cin * l.height * l.width, 2)),
            "weight": NamedTensor(name: "weight", shape: [l.cout, l.cin, l.kernel, l.kernel],
                                  values: values(l.cout * l.cin * l.kernel * l.kernel, 0.3)),
            "bias": NamedTensor(name: "bias", shape: [l.cout], values: values(l.cout, 1)),
            "params": NamedTensor(name: "params", shape: [10],
                                  values: [Float(l.stride), Float(l.stride), Float(pad), Float(pad), Float(pad), Float(pad), 1,
                                           Float(l.activation.rawValue), 0.1, 0]),
            // Only its shape is used: the reference is the CPU path.
            "output": NamedTensor(name: "output", shape: [l.cout, oh, ow], values: []),
        ]
        if l.activation == .prelu { t["slopes"] = NamedTensor(name: "slopes", shape: [l.cout], values: values(l.cout, 0.5)) }
        return t
    }

    /// A context on the same device that reports no shaderInt64, with the validation layer.
    private func contextWithoutInt64() throws -> VulkanContext {
        let lacking = try VulkanContext(deviceIndex: context.info.index, options: ComputeOptions(validation: true, fault: .noInt64))
        XCTAssertFalse(lacking.int64)
        return lacking
    }

    /// `layer` on both contexts against the CPU path, in its own buffers and in the pool; with
    /// shaderInt64 the "_u64" build of `stem` ran, without it the "_vec4" one.
    private func check(_ layer: Layer, stem: String, _ label: String) throws {
        let lacking = try contextWithoutInt64()
        for inPool in [false, true] {
            let made = Conv2DFixtures.conv2d(tensors(layer, seed: UInt64(layer.cin * 31 + layer.cout)), inPool: inPool)
            let cpu = try Conv2DFixtures.run(CPUBackend(weights: []), made)
            for (ctx, int64) in [(context!, true), (lacking, false)] {
                let backend = try VulkanBackend(context: ctx, weights: [])
                let gpu = try Conv2DFixtures.run(backend, made)
                let name = "\(label)\(inPool ? " in the pool" : "")\(int64 ? "" : ", no shaderInt64")"
                VulkanConv2DGraphTests.assertMatchesCPUPath(gpu, cpu, quantum: 0, name)
                let ran = backend.pipelines.shaderNames
                XCTAssertEqual(ran.contains(stem + "_u64"), int64 && ctx.int64, "\(name): \(ran)")
                if !(int64 && ctx.int64) { XCTAssertTrue(ran.contains(stem + "_vec4"), "\(name): \(ran)") }
            }
        }
        VulkanTesting.assertNoValidationErrors(lacking)
    }

    func testPointwise() throws {
        XCTAssertTrue(VulkanBackend.pointwiseStoresU64)
        try check(Layer(cin: 24, cout: 40, height: 8, width: 12, kernel: 1, stride: 1), stem: "conv2d_graph_pointwise", "1x1 24->40, 12x8")
        // 7x7 planes are not whole vec4s: the scalar build on both contexts (checked by the CPU path only).
        // Input channels beyond one piece (2048 x 8 floats): the second chunk continues the stored sums.
        try check(Layer(cin: 2100, cout: 12, height: 4, width: 6, kernel: 1, stride: 1), stem: "conv2d_graph_pointwise",
                  "1x1 2100->12, two input chunks")
        try check(Layer(cin: 5, cout: 3, height: 16, width: 16, kernel: 1, stride: 1, activation: .prelu),
                  stem: "conv2d_graph_pointwise", "1x1 5->3 PReLU")
    }

    func testWinograd() throws {
        XCTAssertTrue(VulkanBackend.winogradStoresU64)
        try check(Layer(cin: 16, cout: 20, height: 9, width: 16, kernel: 3, stride: 1), stem: "conv2d_graph_winograd", "3x3 16->20, 16x9")
        // 300 inputs x 16 positions x 4 channels: two chunks, the second adding to the stored sums.
        try check(Layer(cin: 300, cout: 24, height: 8, width: 12, kernel: 3, stride: 1, activation: .prelu),
                  stem: "conv2d_graph_winograd", "3x3 300->24, two input chunks, PReLU")
    }

    func testGeneral() throws {
        // The 3-channel stems (8-pixel runs, VulkanBackend.stemPixels): rows of two runs, of one
        // and a half (the second vec4 outside), and a map of one run per row.
        for width in [32, 24, 16] {
            try check(Layer(cin: 3, cout: 16, height: 18, width: width, kernel: 3, stride: 2), stem: "conv2d_graph_general",
                      "3x3/2 3->16, \(width)x18")
        }
        try check(Layer(cin: 4, cout: 12, height: 9, width: 8, kernel: 3, stride: 1, activation: .prelu), stem: "conv2d_graph_general",
                  "3x3 4->12, 8x9, PReLU")
        // More inputs keep the texel stores.
        let made = Conv2DFixtures.conv2d(tensors(Layer(cin: 5, cout: 8, height: 8, width: 16, kernel: 3, stride: 1), seed: 3), inPool: false)
        let backend = try VulkanBackend(context: context, weights: [])
        _ = try Conv2DFixtures.run(backend, made)
        XCTAssertEqual(backend.pipelines.shaderNames.filter { $0.hasPrefix("conv2d_graph_general") }, ["conv2d_graph_general_vec4"])
    }

    /// The fused residual add (`VulkanBackend.fusedAdd`) on planes of whole vec4s, as plan steps
    /// (the convolution's output kept too: KEEP_SUM) and in place, on both contexts.
    func testPointwiseFusedAdd() throws {
        let lacking = try contextWithoutInt64()
        var random = SeededRandom(seed: 41)
        func values(_ n: Int, _ scale: Float = 1) -> [Float] {
            (0..<n).map { _ in Float(Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale }
        }
        for (channels, height, width) in [(24, 6, 6), (16, 8, 12)] {
            let shape = NetworkGraph.Shape(channels: channels, height: height, width: width)
            let n = shape.elementCount
            let constants = ModelConstants(values: [values(channels * channels, 0.3), values(channels)])
            for inPlace in [false, true] {
                var pool = PoolLayout()
                let x = pool.place(shape, values(n, 2)), other = pool.place(shape, values(n, 2))
                let sum = pool.place(shape)
                let output = inPlace ? other : pool.place(shape)
                let conv = ExecutionPlan.Conv2D(input: x, output: sum, weights: 0, bias: 1, kernelHeight: 1, kernelWidth: 1,
                                                strideY: 1, strideX: 1, padding: .zero, groups: 1, activation: .relu6)
                let steps: [ExecutionPlan.Step] = [.conv2d(conv), .add(.init(a: sum, b: other, output: output, activation: .identity))]
                let cpu = try GraphOps.run(steps, pool, constants: constants, on: CPUBackend(weights: []))
                for (ctx, int64) in [(context!, true), (lacking, false)] {
                    let backend = try VulkanBackend(context: ctx, weights: [])
                    XCTAssertNotNil(backend.fusedAdd(conv, steps[1]))
                    let gpu = try GraphOps.run(steps, pool, constants: constants, on: backend)
                    let label = "\(width)x\(height)\(inPlace ? " in place" : "")\(int64 ? "" : ", no shaderInt64")"
                    XCTAssertEqual(backend.pipelines.shaderNames.contains("conv2d_graph_pointwise_u64"), int64 && ctx.int64, label)
                    for region in [sum, output] {
                        let c = GraphOps.read(cpu, region), g = GraphOps.read(gpu, region)
                        let scale = max(1, c.map(abs).max() ?? 0)
                        let worst = zip(c, g).map { abs($0 - $1) }.max() ?? 0
                        XCTAssertLessThanOrEqual(worst, 1e-4 * scale, "\(label): \(region == sum ? "the convolution's output" : "the sum")")
                    }
                }
            }
        }
        VulkanTesting.assertNoValidationErrors(lacking)
    }
}

/// Device time per graph convolution kind with 64-bit stores (a context with shaderInt64) and
/// with texel stores (`ComputeOptions.Fault.noInt64`), alternating in rounds in one process (the
/// machine may be shared): MobileNetV2's convolution chain at 224x224 (Conv2DTimingTests.graphs,
/// random weights), RetinaFace-like 3x3 layers at 160x120 (VulkanConv2DGraphTimingTests) and a
/// 3 -> 8 3x3/2 stem at 640x480 as the faces network's. Per kind: the median over rounds of the
/// texel-store time over the 64-bit one, its range, and each build's fastest round. Runs only
/// with GPUSTYLE_GRAPH_CONV_TIMING=1.
final class VulkanConv2DGraphStoresTimingTests: XCTestCase {
    static let rounds = 15

    func testStoresU64AgainstTexelStores() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_GRAPH_CONV_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_GRAPH_CONV_TIMING=1")
        }
        let wide = try VulkanBackend(context: VulkanContext(), weights: [])
        let texel = try VulkanBackend(context: VulkanContext(options: ComputeOptions(fault: .noInt64)), weights: [])
        guard wide.context.int64 else { throw XCTSkip("\(wide.name) has no shaderInt64") }
        for backend in [wide, texel] { try backend.setProfiling(true) }
        let plans = try [GraphLowering.lower(Conv2DTimingTests.graphs().features, input: .init(channels: 3, height: 224, width: 224)),
                         GraphLowering.lower(VulkanConv2DGraphTimingTests.retinaFaceLike(), input: .init(channels: 64, height: 120, width: 160)),
                         GraphLowering.lower(Self.stem(), input: .init(channels: 3, height: 480, width: 640))]
        var ratios: [String: [Double]] = [:]
        var fastest: [String: (wide: Double, texel: Double)] = [:]
        for round in -1..<Self.rounds {  // round -1 warms up (lavapipe compiles at first dispatch)
            // Device seconds per kind: [64-bit, texel].
            var seconds: [[String: Double]] = [[:], [:]]
            for backend in round % 2 == 0 ? [wide, texel] : [texel, wide] {
                for plan in plans {
                    let values = [Float](repeating: 0.5, count: plan.inputShape.channels * plan.inputShape.height * plan.inputShape.width)
                    _ = try backend.run(plan, inputs: [.input: values], normParameters: [], affine: nil, outputs: [])
                    for d in backend.lastTimings?.dispatches ?? [] {
                        guard let k = Self.kind(d.label) else { continue }
                        seconds[backend === wide ? 0 : 1][k, default: 0] += d.nanoseconds * 1e-9
                    }
                }
            }
            for (k, w) in seconds[0] where round >= 0 {
                guard let t = seconds[1][k] else { continue }
                ratios[k, default: []].append(t / w)
                fastest[k] = (min(fastest[k]?.wide ?? .infinity, w), min(fastest[k]?.texel ?? .infinity, t))
            }
        }
        print("64-bit against texel stores on \(wide.name), \(Self.rounds) alternating rounds (texel time / 64-bit time per round)")
        for (k, r) in ratios.sorted(by: { $0.key < $1.key }) {
            let s = r.sorted()
            print(String(format: "  %@: median %.2f (%.2f-%.2f); fastest round %.2f ms against %.2f", k, s[s.count / 2], s.first!, s.last!,
                         fastest[k]!.wide * 1e3, fastest[k]!.texel * 1e3))
        }
    }

    /// The kind of a graph convolution dispatch from its label (VulkanBackend.recordConv2D's
    /// "conv2d KHxKW/stride in -> out groups g", " winograd" after Winograd's), or nil.
    static func kind(_ label: String) -> String? {
        guard let at = label.range(of: "conv2d ") else { return nil }
        let rest = label[at.upperBound...]
        if rest.contains("winograd") { return "winograd" }
        if rest.hasPrefix("1x1/1") { return "pointwise" }
        guard let g = rest.range(of: "groups ") else { return nil }
        let groups = Int(rest[g.upperBound...].prefix { $0.isNumber }) ?? 1
        if groups > 1 { return "depthwise" }
        // The input shape's channels (NetworkGraph.Shape's description "CxHxW" after the kernel).
        let inputs = rest.split(separator: " ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
        return inputs.map { $0 <= 4 } == true ? "stem" : "general"
    }

    /// A 3 -> 8 3x3/2 convolution (the faces network's stem), random weights.
    static func stem() -> NetworkGraph {
        var random = SeededRandom(seed: 9)
        let weights = (0..<8 * 3 * 9).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) * 0.2 }
        let bias = (0..<8).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) }
        let c = NetworkGraph.Convolution(weights: 0, bias: 1, outputChannels: 8, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2,
                                         padding: .init(1), groups: 1, activation: .relu)
        return NetworkGraph(input: 0, output: 1, tensorCount: 2, nodes: [.init(name: "stem", operation: .convolution(c), inputs: [0], output: 1)],
                            constants: ModelConstants(values: [weights, bias]))
    }
}
