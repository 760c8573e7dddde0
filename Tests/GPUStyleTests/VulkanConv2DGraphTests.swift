import XCTest
@testable import GPUStyle

/// The uniform-buffer graph convolution shaders (conv2d_graph_pointwise.comp,
/// conv2d_graph_general.comp, conv2d_graph_depthwise.comp) on layers the torch fixtures of
/// Conv2DTests do not reach: weights split into several 64 KiB pieces (output-channel groups,
/// and input-channel chunks whose partial sums later dispatches continue), maps whose rows are
/// not multiples of the tile, fused PReLU and fake quantisation. The reference is the CPU path
/// (itself checked against torch on every ISA by Conv2DTests), with Conv2DFixtures' tolerance.
final class VulkanConv2DGraphTests: VulkanTestCase {
    /// A graph convolution's Vulkan output against the CPU path's: within 1e-4 of the largest
    /// output (at least 1), or with fake quantisation within one quantum, and then at most 1 %
    /// of the outputs a quantum apart (a sum on either side of a rounding boundary).
    static func assertMatchesCPUPath(_ gpu: [Float], _ cpu: [Float], quantum: Float, _ label: String,
                                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(cpu.count, gpu.count, label, file: file, line: line)
        let scale = max(1, cpu.map(abs).max() ?? 0)
        var worst: Float = 0, flips = 0
        for (c, g) in zip(cpu, gpu) {
            let d = abs(c - g)
            worst = max(worst, d.isNaN ? .infinity : d)
            if d > 1e-4 * scale { flips += 1 }
        }
        XCTAssertLessThanOrEqual(worst, max(1e-4 * scale, quantum * 1.001), label, file: file, line: line)
        XCTAssertLessThanOrEqual(flips, quantum > 0 ? cpu.count / 100 : 0, "\(label): outputs off by a quantum", file: file, line: line)
    }

    private struct Layer {
        var cin, cout, height, width, kh, kw, stride, pad, groups: Int
        var activation: Activation = .relu6
        var quantize: NetworkGraph.FakeQuantize?
    }

    private func tensors(_ l: Layer, seed: UInt64) -> [String: NamedTensor] {
        var random = SeededRandom(seed: seed)
        func values(_ n: Int, _ scale: Double) -> [Float] {
            (0..<n).map { _ in Float((Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale) }
        }
        let oh = (l.height + 2 * l.pad - l.kh) / l.stride + 1, ow = (l.width + 2 * l.pad - l.kw) / l.stride + 1
        let act = Float(l.activation.rawValue)
        var t = [
            "input": NamedTensor(name: "input", shape: [l.cin, l.height, l.width], values: values(l.cin * l.height * l.width, 2)),
            "weight": NamedTensor(name: "weight", shape: [l.cout, l.cin / l.groups, l.kh, l.kw],
                                  values: values(l.cout * l.cin / l.groups * l.kh * l.kw, 0.3)),
            "bias": NamedTensor(name: "bias", shape: [l.cout], values: values(l.cout, 1)),
            "params": NamedTensor(name: "params", shape: [10],
                                  values: [Float(l.stride), Float(l.stride), Float(l.pad), Float(l.pad), Float(l.pad), Float(l.pad),
                                           Float(l.groups), act, 0.1, 0]),
            // Only its shape is used: the reference is the CPU path.
            "output": NamedTensor(name: "output", shape: [l.cout, oh, ow], values: []),
        ]
        if l.activation == .prelu { t["slopes"] = NamedTensor(name: "slopes", shape: [l.cout], values: values(l.cout, 0.5)) }
        return t
    }

    /// Vulkan against the CPU path; with a fake quantisation a sum a few ulps off may round to
    /// the neighbouring level, so there one quantum is allowed at under 1% of the outputs.
    private func check(_ l: Layer, _ label: String) throws {
        for inPool in [false, true] {
            var made = Conv2DFixtures.conv2d(tensors(l, seed: UInt64(l.cin * 31 + l.cout)), inPool: inPool)
            if let q = l.quantize { made.plan = Conv2DFixtures.quantizing(made.plan, by: q) }
            let cpu = try Conv2DFixtures.run(CPUBackend(weights: []), made)
            let gpu = try Conv2DFixtures.run(VulkanBackend(context: context, weights: []), made)
            Self.assertMatchesCPUPath(gpu, cpu, quantum: l.quantize?.scale ?? 0, "\(label)\(inPool ? " in the pool" : "")")
        }
    }

    func testPointwiseAcrossWeightPieces() throws {
        // 600 x 8 x 4 bytes per block: 3 blocks per 64 KiB piece, 40 outputs -> 2 pieces.
        let layer = Layer(cin: 600, cout: 40, height: 9, width: 7, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1)
        XCTAssertEqual(VulkanBackend.graphWeightsLayout(Conv2DFixtures.conv2d(tensors(layer, seed: 1), inPool: false).plan.conv)?.pieces.count, 2)
        try check(layer, "1x1 600->40, 9x7")
        // 224 outputs are 28 blocks, 10 pieces of one input-channel chunk: two dispatches, of 8
        // pieces (the uniform-buffer array's size) and 2.
        let wide = Layer(cin: 600, cout: 224, height: 4, width: 5, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1)
        let wideLayout = VulkanBackend.graphWeightsLayout(Conv2DFixtures.conv2d(tensors(wide, seed: 1), inPool: false).plan.conv)
        XCTAssertEqual(wideLayout?.dispatchGroups(piecesPerDispatch: VulkanBackend.graphWeightPieces).map(\.count), [8, 2])
        try check(wide, "1x1 600->224, 5x4")
        // Input channels beyond one piece (2048 x 8 floats): two chunks, the second continuing.
        try check(Layer(cin: 2100, cout: 12, height: 4, width: 6, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1), "1x1 2100->12")
        try check(Layer(cin: 5, cout: 3, height: 16, width: 16, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1, activation: .prelu),
                  "1x1 5->3 PReLU")
    }

    func testPointwiseOnPlanesOfAnySize() throws {
        // 7x7 = 49 pixels: each input channel's run starts at another offset in its vec4 (the
        // 4-channel steps), 2101 channels: two chunks, the second of 53 (a tail of 1).
        try check(Layer(cin: 2101, cout: 12, height: 7, width: 7, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1), "1x1 2101->12, 7x7")
        try check(Layer(cin: 39, cout: 20, height: 5, width: 3, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1), "1x1 39->20, 3x5")
        try check(Layer(cin: 6, cout: 9, height: 9, width: 9, kh: 1, kw: 1, stride: 1, pad: 0, groups: 1, activation: .sigmoid),
                  "1x1 6->9, 9x9")
    }

    /// A 1x1 convolution followed by an add of its output (the projection of an inverted
    /// residual block), which the Vulkan backend records as one dispatch (`fusedAdd`): as plan
    /// steps (the convolution's output is stored too), in place (the add writes its other
    /// operand), with the add's fake quantisation, and inside an inverted residual step.
    func testPointwiseFusesTheResidualAdd() throws {
        var random = SeededRandom(seed: 40)
        func values(_ n: Int, _ scale: Float = 1) -> [Float] {
            (0..<n).map { _ in Float(Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale }
        }
        for (channels, height, width) in [(37, 7, 7), (24, 6, 6), (16, 5, 9)] {
            let shape = NetworkGraph.Shape(channels: channels, height: height, width: width)
            let n = shape.elementCount
            let constants = ModelConstants(values: [values(channels * channels, 0.3), values(channels), values(channels * 9, 0.5),
                                                    values(channels)])
            func pointwise(_ input: ExecutionPlan.Region, _ output: ExecutionPlan.Region) -> ExecutionPlan.Conv2D {
                .init(input: input, output: output, weights: 0, bias: 1, kernelHeight: 1, kernelWidth: 1, strideY: 1, strideX: 1,
                      padding: .zero, groups: 1, activation: .identity)
            }
            for variant in ["steps", "in place", "quantised", "inverted residual"] {
                var pool = PoolLayout()
                let x = pool.place(shape, values(n, 2)), other = pool.place(shape, values(n, 2))
                let sum = pool.place(shape), filtered = pool.place(shape)
                let output = variant == "in place" ? other : pool.place(shape)
                let quantize: NetworkGraph.FakeQuantize? = variant == "quantised" ? .int8(scale: 0.05, zeroPoint: 2) : nil
                let steps: [ExecutionPlan.Step]
                if variant == "inverted residual" {
                    let depthwise = ExecutionPlan.Conv2D(input: x, output: filtered, weights: 2, bias: 3, kernelHeight: 3,
                                                         kernelWidth: 3, strideY: 1, strideX: 1, padding: .init(1),
                                                         groups: channels, activation: .relu6)
                    steps = [.invertedResidual(.init(expand: nil, depthwise: depthwise, project: pointwise(filtered, sum),
                                                     residual: .init(a: sum, b: x, output: output, activation: .identity)))]
                } else {
                    steps = [.conv2d(pointwise(x, sum)),
                             .add(.init(a: sum, b: other, output: output, activation: .identity, quantize: quantize))]
                }
                let gpuBackend = try VulkanBackend(context: context, weights: [])
                if case .conv2d(let conv) = steps[0] { XCTAssertNotNil(gpuBackend.fusedAdd(conv, steps[1])) }
                let cpu = try GraphOps.run(steps, pool, constants: constants, on: CPUBackend(weights: []))
                let gpu = try GraphOps.run(steps, pool, constants: constants, on: gpuBackend)
                let label = "\(variant), \(width)x\(height)"
                for region in variant == "inverted residual" ? [output] : [sum, output] {
                    let c = GraphOps.read(cpu, region), g = GraphOps.read(gpu, region)
                    let scale = max(1, c.map(abs).max() ?? 0)
                    let worst = zip(c, g).map { abs($0 - $1) }.max() ?? 0
                    XCTAssertLessThanOrEqual(worst, max(1e-4 * scale, quantize.map { $0.scale * 1.001 } ?? 0),
                                             "\(label): \(region == sum ? "the convolution's output" : "the sum")")
                }
            }
        }
    }

    func testGeneralAcrossInputChunks() throws {
        // 3x3 x 8 outputs: 227 input channels per piece, so 300 take two chunks.
        try check(Layer(cin: 300, cout: 20, height: 11, width: 13, kh: 3, kw: 3, stride: 1, pad: 1, groups: 1), "3x3 300->20")
        // Rows of whole vec4s: input and output through RGBA views (the _vec4 build), also
        // across input chunks.
        try check(Layer(cin: 300, cout: 12, height: 5, width: 12, kh: 3, kw: 3, stride: 1, pad: 1, groups: 1), "3x3 300->12, 12 wide")
        try check(Layer(cin: 3, cout: 16, height: 9, width: 16, kh: 3, kw: 3, stride: 2, pad: 1, groups: 1), "3x3/2 3->16, 16 wide")
        try check(Layer(cin: 5, cout: 8, height: 6, width: 8, kh: 1, kw: 5, stride: 1, pad: 0, groups: 1), "1x5 unpadded, 8 wide")
        try check(Layer(cin: 7, cout: 9, height: 15, width: 10, kh: 3, kw: 3, stride: 2, pad: 1, groups: 1, activation: .sigmoid),
                  "3x3/2 7->9")
        try check(Layer(cin: 4, cout: 4, height: 12, width: 19, kh: 1, kw: 3, stride: 1, pad: 0, groups: 1), "1x3 4->4")
        try check(Layer(cin: 16, cout: 24, height: 9, width: 9, kh: 5, kw: 5, stride: 2, pad: 2, groups: 1,
                        quantize: .int8(scale: 0.05, zeroPoint: 3)), "5x5/2 16->24 fake-quantised")
    }

    func testDepthwiseAcrossWeightPieces() throws {
        // 2048 channels of 3x3 per piece: 2100 take two.
        try check(Layer(cin: 2100, cout: 2100, height: 5, width: 6, kh: 3, kw: 3, stride: 1, pad: 1, groups: 2100),
                  "depthwise 3x3 2100 channels")
        try check(Layer(cin: 12, cout: 12, height: 10, width: 16, kh: 3, kw: 3, stride: 1, pad: 1, groups: 12),
                  "depthwise 3x3, 16 wide")
        try check(Layer(cin: 6, cout: 6, height: 11, width: 24, kh: 3, kw: 3, stride: 2, pad: 1, groups: 6), "depthwise 3x3/2, 24 wide")
        try check(Layer(cin: 10, cout: 10, height: 17, width: 13, kh: 5, kw: 5, stride: 2, pad: 2, groups: 10, activation: .prelu),
                  "depthwise 5x5/2 PReLU")
        try check(Layer(cin: 8, cout: 8, height: 9, width: 11, kh: 3, kw: 3, stride: 2, pad: 1, groups: 8,
                        quantize: .int8(scale: 0.02, zeroPoint: -4)), "depthwise 3x3/2 fake-quantised")
        // 4 x 8 tiles: rows of whole vec4s (64-bit stores of vec4s), ragged rows and columns,
        // stride 2, rows of an even width (64-bit stores of pairs: 26, 14 and 34 wide) and of an
        // odd one (texel stores: 7 and 17 wide); maps of fewer than 64 runs pack several channels
        // into a workgroup (14x14, 7x7 and everything above under 64x40), the rest one per workgroup.
        for (height, width, stride, channels) in [(20, 24, 1, 5), (19, 28, 1, 5), (34, 40, 2, 5), (17, 26, 1, 5), (29, 34, 2, 5),
                                                  (14, 14, 1, 40), (7, 7, 1, 24), (14, 14, 2, 20), (40, 64, 1, 3), (45, 70, 1, 3),
                                                  (90, 68, 2, 3)] {
            let layer = Layer(cin: channels, cout: channels, height: height, width: width, kh: 3, kw: 3, stride: stride, pad: 1,
                              groups: channels)
            let made = Conv2DFixtures.conv2d(tensors(layer, seed: 2), inPool: false).plan.conv
            let (rows, pixels) = VulkanBackend.depthwiseTile(made.output)
            let runs = (made.output.width + pixels - 1) / pixels * ((made.output.height + rows - 1) / rows)
            let packed = VulkanBackend.depthwisePacksChannels(runs: runs)
            XCTAssertEqual(packed, runs < 64)
            try check(layer, "depthwise 3x3/\(stride) \(width)x\(height) \(channels) channels\(packed ? ", packed" : "")")
        }
        try check(Layer(cin: 6, cout: 6, height: 33, width: 36, kh: 5, kw: 5, stride: 2, pad: 2, groups: 6, activation: .prelu),
                  "depthwise 5x5/2 PReLU, 4 x 8 tile")
    }
}

private extension ExecutionPlan {
    var conv: ExecutionPlan.Conv2D {
        guard case .conv2d(let c) = steps[0] else { preconditionFailure("not a conv2d plan") }
        return c
    }
}

/// Prints the device time and GFLOP/s of the graph convolution shaders per kind (1x1,
/// depthwise, general K x K stride 1 and 2) on torchvision MobileNetV2's convolution chain at
/// 224x224 (Conv2DTimingTests.graphs, random weights) and on RetinaFace-like 3x3 layers at
/// 160x120, fastest of 5 runs per dispatch (timestamp queries). Runs only with
/// GPUSTYLE_GRAPH_CONV_TIMING=1; `gpustyle profile --trace` gives the same per dispatch.
final class VulkanConv2DGraphTimingTests: XCTestCase {
    func testPerKindThroughput() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_GRAPH_CONV_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_GRAPH_CONV_TIMING=1")
        }
        let backend = try VulkanBackend(context: VulkanContext(), weights: [])
        try backend.setProfiling(true)
        var fastest: [String: Double] = [:]
        var kinds: [String: String] = [:]
        var work: [String: Int] = [:]
        func time(_ graph: NetworkGraph, _ input: NetworkGraph.Shape) throws {
            let plan = try GraphLowering.lower(graph, input: input)
            // Layers of one shape share a label: their times and work add up.
            for step in plan.steps.flatMap(\.parts) {
                guard case .conv2d(let c) = step else { continue }
                let key = "\(c.kernelHeight)x\(c.kernelWidth)/\(c.strideY) \(c.input.shape) -> \(c.output.shape) groups \(c.groups)"
                kinds[key] = c.isDepthwise ? "depthwise \(c.strideY == 1 ? "s1" : "s2")" : c.isPointwise ? "1x1"
                    : "general \(c.kernelHeight)x\(c.kernelWidth)/\(c.strideY)"
                work[key, default: 0] += c.multiplyAdds
            }
            let values = [Float](repeating: 0.5, count: input.elementCount)
            for _ in 0..<5 {
                _ = try backend.run(plan, inputs: [.input: values], normParameters: [], affine: nil, outputs: [])
                var perLayer: [String: Double] = [:]
                for d in backend.lastTimings?.dispatches ?? [] {
                    guard let range = d.label.range(of: "conv2d ") else { continue }
                    let key = String(d.label[range.upperBound...]).replacingOccurrences(of: #" piece \d+$"#, with: "",
                                                                                        options: .regularExpression)
                    perLayer[key, default: 0] += d.nanoseconds * 1e-9
                }
                for (key, seconds) in perLayer { fastest[key] = min(fastest[key] ?? .infinity, seconds) }
            }
        }
        try time(Conv2DTimingTests.graphs().features, .init(channels: 3, height: 224, width: 224))
        try time(Self.retinaFaceLike(), .init(channels: 64, height: 120, width: 160))
        var byKind: [String: (seconds: Double, multiplyAdds: Int)] = [:]
        for (key, seconds) in fastest {
            guard let kind = kinds[key] else { continue }
            byKind[kind, default: (0, 0)].seconds += seconds
            byKind[kind, default: (0, 0)].multiplyAdds += work[key]!
        }
        print("graph conv on \(backend.name), fastest of 5 runs per layer")
        for (key, seconds) in fastest.sorted(by: { $0.value > $1.value }) where kinds[key] != nil {
            print(String(format: "  %@: %.2f ms, %.1f GFLOP/s", key, seconds * 1e3, 2 * Double(work[key]!) / seconds * 1e-9))
        }
        for (kind, t) in byKind.sorted(by: { $0.key < $1.key }) {
            print(String(format: "%@: %.2f ms, %.1f GFLOP/s", kind, t.seconds * 1e3, 2 * Double(t.multiplyAdds) / t.seconds * 1e-9))
        }
    }

    /// 3x3 layers of RetinaFace's context modules and a stride-2 3x3 (random weights).
    static func retinaFaceLike() -> NetworkGraph {
        var values: [[Float]] = []
        var random = SeededRandom(seed: 3)
        var nodes: [NetworkGraph.Node] = []
        for (n, (cin, cout, stride)) in [(64, 32, 1), (32, 16, 1), (16, 16, 1), (16, 64, 2)].enumerated() {
            values.append((0..<cout * cin * 9).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) * 0.2 })
            values.append((0..<cout).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) })
            let c = NetworkGraph.Convolution(weights: values.count - 2, bias: values.count - 1, outputChannels: cout,
                                             kernelHeight: 3, kernelWidth: 3, strideY: stride, strideX: stride,
                                             padding: .init(1), groups: 1, activation: .relu)
            nodes.append(.init(name: "conv \(n)", operation: .convolution(c), inputs: [n], output: n + 1))
        }
        return NetworkGraph(input: 0, output: nodes.count, tensorCount: nodes.count + 1, nodes: nodes,
                            constants: ModelConstants(values: values))
    }
}
