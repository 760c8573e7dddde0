import XCTest
@testable import GPUStyle

/// conv2d_graph_winograd.comp (Winograd's F(2x2, 3x3) for 3x3 stride-1 graph convolutions)
/// against independent references: the torch fixtures of Conv2DTests (tools/make_conv2d_fixtures.py,
/// float64), and on random layers a float64 direct convolution computed here, beside the direct
/// Vulkan shader (`usesWinograd` off) and the CPU path on the same layer.
///
/// Tolerance, from the arithmetic: every float the shader adds is one of the products
/// U[i][j] * V[i][j] (weights and input tile transformed), summed over the input channels and
/// then by the output transform A^T M A, whose coefficients are 0 and ±1; a sum of n terms in
/// fp32 (rounding unit u = 2^-24) is within n u of the sum of their magnitudes, and the
/// transforms themselves add up to 4 rounded terms (input) and 9 (weights, computed in double
/// and rounded once). So the error of an output is at most
/// (cin + 16) u × Σ_ci Σ_ij |A-coefficient| |U_ij| |V_ij| (+ u |y| for the bias), the
/// `winogradBound` computed below per output in float64; the direct shader's is
/// 9 cin u × Σ |w| |x|. Both are checked, and the Winograd error against 4x the direct one's
/// bound at most (its magnitudes are larger: |V| sums up to 4 inputs).
final class VulkanConv2DGraphWinogradTests: VulkanTestCase {
    private struct Layer {
        var cin, cout, height, width: Int
        var padTop = 1, padLeft = 1, padBottom = 1, padRight = 1
        var activation: Activation = .identity
        var quantize: NetworkGraph.FakeQuantize?
        var outHeight: Int { height + padTop + padBottom - 2 }
        var outWidth: Int { width + padLeft + padRight - 2 }
    }

    private struct Made {
        var plan: ExecutionPlan
        var inputs: [ExecutionPlan.Buffer: [Float]]
        var output: ExecutionPlan.Region
        var input: [Float], weights: [Float], bias: [Float]
    }

    private func make(_ l: Layer, seed: UInt64, inPool: Bool = false) -> Made {
        var random = SeededRandom(seed: seed)
        func values(_ n: Int, _ scale: Double) -> [Float] {
            (0..<n).map { _ in Float((Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale) }
        }
        let input = values(l.cin * l.height * l.width, 2), weights = values(l.cout * l.cin * 9, 0.3), bias = values(l.cout, 1)
        var constants = [weights, bias]
        if l.activation == .prelu { constants.append(values(l.cout, 0.5)) }
        let t: [String: NamedTensor] = [
            "input": NamedTensor(name: "input", shape: [l.cin, l.height, l.width], values: input),
            "weight": NamedTensor(name: "weight", shape: [l.cout, l.cin, 3, 3], values: weights),
            "bias": NamedTensor(name: "bias", shape: [l.cout], values: bias),
            "params": NamedTensor(name: "params", shape: [10],
                                  values: [1, 1, Float(l.padTop), Float(l.padLeft), Float(l.padBottom), Float(l.padRight), 1,
                                           Float(l.activation.rawValue), 0.1, 0]),
            "output": NamedTensor(name: "output", shape: [l.cout, l.outHeight, l.outWidth], values: []),
        ].merging(l.activation == .prelu ? ["slopes": NamedTensor(name: "slopes", shape: [l.cout], values: constants[2])] : [:]) { a, _ in a }
        var made = Conv2DFixtures.conv2d(t, inPool: inPool)
        if let q = l.quantize { made.plan = Conv2DFixtures.quantizing(made.plan, by: q) }
        return Made(plan: made.plan, inputs: made.inputs, output: made.output, input: input, weights: weights, bias: bias)
    }

    private func conv(_ plan: ExecutionPlan) -> ExecutionPlan.Conv2D {
        guard case .conv2d(let c) = plan.steps[0] else { preconditionFailure("not a conv2d plan") }
        return c
    }

    private func run(_ made: Made, winograd: Bool) throws -> [Float] {
        let backend = try VulkanBackend(context: context, weights: [])
        backend.usesWinograd = winograd
        XCTAssertEqual(backend.graphWeightsLayout(conv(made.plan))?.kind, winograd ? .winograd : .general)
        return try Conv2DFixtures.run(backend, (made.plan, made.inputs, made.output))
    }

    /// The float64 direct convolution plus bias (no activation), the sum of the direct
    /// products' magnitudes, and `winogradBound`'s magnitude sum, per output.
    private func reference(_ l: Layer, _ m: Made) -> (exact: [Double], direct: [Double], winograd: [Double]) {
        let oh = l.outHeight, ow = l.outWidth
        func x(_ c: Int, _ y: Int, _ xx: Int) -> Double {
            y < 0 || y >= l.height || xx < 0 || xx >= l.width ? 0 : Double(m.input[(c * l.height + y) * l.width + xx])
        }
        let u = VulkanBackend.winogradWeights(m.weights, outputs: l.cout, inputs: l.cin).map { abs(Double($0)) }
        // |A| coefficients of output (r, c) of a tile over position (i, j): A^T = [1 1 1 0; 0 1 -1 -1].
        let a: [[Double]] = [[1, 1, 1, 0], [0, 1, 1, 1]]
        var exact = [Double](repeating: 0, count: l.cout * oh * ow), direct = exact, winograd = exact
        for o in 0..<l.cout {
            for y in 0..<oh {
                for xx in 0..<ow {
                    var sum = Double(m.bias[o]), magnitude = 0.0, wino = 0.0
                    let ty = y / 2 * 2, tx = xx / 2 * 2, r = y - ty, c = xx - tx
                    for ci in 0..<l.cin {
                        for ky in 0..<3 {
                            for kx in 0..<3 {
                                let w = Double(m.weights[((o * l.cin + ci) * 3 + ky) * 3 + kx])
                                let v = x(ci, y + ky - l.padTop, xx + kx - l.padLeft)
                                sum += w * v
                                magnitude += abs(w * v)
                            }
                        }
                        // |V| = |B^T d B| <= |B|^T |d| |B| (B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]).
                        let b: [[Double]] = [[1, 0, 1, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 1, 0, 1]]
                        for i in 0..<4 where a[r][i] != 0 {
                            for j in 0..<4 where a[c][j] != 0 {
                                var v = 0.0
                                for p in 0..<4 { for q in 0..<4 { v += b[i][p] * b[j][q] * abs(x(ci, ty + p - l.padTop, tx + q - l.padLeft)) } }
                                wino += u[(o * l.cin + ci) * 16 + i * 4 + j] * v
                            }
                        }
                    }
                    let at = (o * oh + y) * ow + xx
                    exact[at] = sum
                    direct[at] = magnitude
                    winograd[at] = wino
                }
            }
        }
        return (exact, direct, winograd)
    }

    /// Both shaders against the float64 reference within their bounds; the worst error of each
    /// relative to its bound is returned for the message.
    private func checkBounds(_ l: Layer, _ label: String, seed: UInt64 = 7) throws {
        precondition(l.activation == .identity && l.quantize == nil, "the bounds are for the plain convolution")
        let made = make(l, seed: seed)
        let (exact, directMagnitude, winogradMagnitude) = reference(l, made)
        let unit = 0x1p-24
        let winograd = try run(made, winograd: true), direct = try run(made, winograd: false)
        XCTAssertEqual(winograd.count, exact.count)
        var worst = (winograd: 0.0, direct: 0.0, winogradError: 0.0, directError: 0.0)
        for i in exact.indices {
            let wBound = Double(l.cin + 16) * unit * winogradMagnitude[i] + unit * abs(exact[i]) + 1e-30
            let dBound = Double(9 * l.cin + 1) * unit * directMagnitude[i] + unit * abs(exact[i]) + 1e-30
            let we = abs(Double(winograd[i]) - exact[i]), de = abs(Double(direct[i]) - exact[i])
            worst.winograd = max(worst.winograd, we.isNaN ? .infinity : we / wBound)
            worst.direct = max(worst.direct, de / dBound)
            worst.winogradError = max(worst.winogradError, we.isNaN ? .infinity : we)
            worst.directError = max(worst.directError, de)
            XCTAssertLessThanOrEqual(we, 4 * dBound, "\(label): output \(i) beyond 4x the direct bound")
        }
        XCTAssertLessThanOrEqual(worst.winograd, 1, "\(label): Winograd error over its bound")
        XCTAssertLessThanOrEqual(worst.direct, 1, "\(label): direct error over its bound")
        print(String(format: "%@: largest error Winograd %.2e (%.3f of its bound), direct %.2e (%.3f)", label,
                     worst.winogradError, worst.winograd, worst.directError, worst.direct))
    }

    func testMatchesFloat64ReferenceWithinTheRoundingBound() throws {
        // Rows of whole vec4s (vec4 views), both tiles of a run inside.
        try checkBounds(Layer(cin: 16, cout: 16, height: 8, width: 16), "16->16 16x8")
        // Odd heights and widths (a tile half outside, scalar views), ragged runs.
        try checkBounds(Layer(cin: 17, cout: 20, height: 7, width: 13), "17->20 13x7")
        // Input channels over one 64 KiB piece (256 x 16 positions x 4 channels): two chunks,
        // the second adding its output tile to the stored partial sums.
        try checkBounds(Layer(cin: 300, cout: 24, height: 8, width: 12), "300->24 12x8, two input chunks")
        // Output blocks over several pieces and dispatches (128 inputs: two 4-channel blocks per piece).
        try checkBounds(Layer(cin: 128, cout: 80, height: 8, width: 16), "128->80 16x8, 10 pieces")
        // Unpadded and asymmetrically padded.
        try checkBounds(Layer(cin: 16, cout: 16, height: 9, width: 12, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
                        "16->16 valid")
        try checkBounds(Layer(cin: 16, cout: 32, height: 10, width: 11, padTop: 0, padLeft: 1, padBottom: 2, padRight: 0),
                        "16->32 padded 0/1/2/0")
    }

    /// The epilogue (PReLU, sigmoid) and regions in the pool, against the CPU path with
    /// VulkanConv2DGraphTests' tolerance (1e-4 of the output's scale). A plan with fake
    /// quantisation runs the direct shader (`VulkanBackend.allowsWinograd`), whatever its layers.
    func testEpilogueMatchesTheCPUPath() throws {
        let layers: [(Layer, String)] = [
            (Layer(cin: 24, cout: 20, height: 11, width: 16, activation: .prelu), "PReLU"),
            (Layer(cin: 16, cout: 18, height: 9, width: 10, activation: .sigmoid), "sigmoid"),
        ]
        let quantised = make(Layer(cin: 32, cout: 16, height: 12, width: 20, activation: .relu,
                                   quantize: .int8(scale: 0.05, zeroPoint: 3)), seed: 11, inPool: false)
        XCTAssertFalse(VulkanBackend.allowsWinograd(quantised.plan))
        let backend = try VulkanBackend(context: context, weights: [])
        let gpu = try Conv2DFixtures.run(backend, (quantised.plan, quantised.inputs, quantised.output))
        // The same layer without the quantisation takes the Winograd shader.
        let plain = make(Layer(cin: 32, cout: 16, height: 12, width: 20, activation: .relu), seed: 11, inPool: false).plan
        XCTAssertEqual(backend.kernelNote(for: plain.steps[0], in: plain), ProfileReport.winogradMark)
        XCTAssertEqual(backend.kernelNote(for: quantised.plan.steps[0], in: quantised.plan), "[general]", "a fake-quantised plan")
        VulkanConv2DGraphTests.assertMatchesCPUPath(
            gpu, try Conv2DFixtures.run(CPUBackend(weights: []), (quantised.plan, quantised.inputs, quantised.output)),
            quantum: 0.05, "fake-quantised")
        for (layer, label) in layers {
            XCTAssertTrue(VulkanBackend.allowsWinograd(make(layer, seed: 11, inPool: false).plan), label)
            for inPool in [false, true] {
                let made = make(layer, seed: 11, inPool: inPool)
                let cpu = try Conv2DFixtures.run(CPUBackend(weights: []), (made.plan, made.inputs, made.output))
                let gpu = try run(made, winograd: true)
                VulkanConv2DGraphTests.assertMatchesCPUPath(gpu, cpu, quantum: layer.quantize?.scale ?? 0,
                                                            "\(label)\(inPool ? " in the pool" : "")")
            }
        }
    }

    /// The torch fixtures of 3x3 stride-1 layers with 16+ channels run this shader, within
    /// Conv2DFixtures' tolerance.
    func testMatchesTorchFixtures() throws {
        var ran = 0
        for name in try Conv2DFixtures.names(prefix: "conv2d_") {
            let t = try Fixtures.tensors(name)
            let made = Conv2DFixtures.conv2d(t, inPool: false)
            guard VulkanBackend.graphWeightsLayout(conv(made.plan))?.kind == .winograd else { continue }
            let got = try Conv2DFixtures.run(VulkanBackend(context: context, weights: []), made)
            Conv2DFixtures.assertClose(got, t["output"]!, "\(name) by Winograd")
            ran += 1
        }
        XCTAssertGreaterThanOrEqual(ran, 2, "fixtures that take the Winograd shader")
    }

    /// Which layers take the shader (3x3, stride 1, one group, `winogradMinimumChannels` on
    /// both sides, `winogradMinimumRuns`), and the profile's mark for them (`ProfileReport.winogradMark`, as the CPU
    /// path's Winograd steps get).
    func testSelectionAndProfileMark() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        func note(_ l: Layer) -> String? {
            let plan = make(l, seed: 1).plan
            return backend.kernelNote(for: plan.steps[0], in: plan)
        }
        let minimum = VulkanBackend.winogradMinimumChannels
        XCTAssertEqual(note(Layer(cin: minimum, cout: minimum, height: 8, width: 16)),
                       ProfileReport.winogradMark)
        // 16 columns are 2 runs of 8 per row: 6 rows make 3 rows of tiles, 6 runs; 7 rows 4, 8 runs.
        XCTAssertEqual(VulkanBackend.winogradMinimumRuns, 8)
        XCTAssertEqual(note(Layer(cin: 32, cout: 32, height: 6, width: 16)), "[general]")
        XCTAssertEqual(note(Layer(cin: 32, cout: 32, height: 7, width: 16)), ProfileReport.winogradMark)
        XCTAssertEqual(note(Layer(cin: 64, cout: 128, height: 7, width: 7)), "[general]")
        XCTAssertEqual(note(Layer(cin: minimum - 1, cout: 32, height: 8, width: 16)), "[general]")
        XCTAssertEqual(note(Layer(cin: 32, cout: minimum - 1, height: 8, width: 16)), "[general]")
        backend.usesWinograd = false
        XCTAssertEqual(note(Layer(cin: 32, cout: 32, height: 8, width: 16)), "[general]")
    }

    /// The weight transform: U = G g G^T of a kernel with one nonzero tap is the outer product of
    /// G's columns (G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]).
    func testWeightTransformOfSingleTaps() {
        let g: [[Float]] = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
        for tap in 0..<9 {
            var kernel = [Float](repeating: 0, count: 9)
            kernel[tap] = 1
            let u = VulkanBackend.winogradWeights(kernel, outputs: 1, inputs: 1)
            for i in 0..<4 { for j in 0..<4 { XCTAssertEqual(u[i * 4 + j], g[i][tap / 3] * g[j][tap % 3], "tap \(tap) (\(i), \(j))") } }
        }
    }
}

/// Device time of the faces network's 3x3 stride-1 layer shapes (RetinaFace's context modules
/// at 640x480: 60x80 and 30x40 maps, random weights) by conv2d_graph_winograd.comp and by the
/// direct conv2d_graph_general.comp, alternating in rounds in one process (the machine may be
/// shared), median of `rounds` per shape and shader, and the per-round ratios' median and range. Runs only with
/// GPUSTYLE_GRAPH_CONV_TIMING=1.
final class VulkanConv2DGraphWinogradTimingTests: XCTestCase {
    static let rounds = 7

    func testWinogradAgainstDirect() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_GRAPH_CONV_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_GRAPH_CONV_TIMING=1")
        }
        let context = try VulkanContext()
        let winograd = try VulkanBackend(context: context, weights: []), direct = try VulkanBackend(context: context, weights: [])
        direct.usesWinograd = false
        for backend in [winograd, direct] { try backend.setProfiling(true) }
        var random = SeededRandom(seed: 5)
        var totals = (winograd: 0.0, direct: 0.0, flops: 0.0)
        print("3x3 stride-1 layers on \(winograd.name): median of \(Self.rounds) alternating rounds")
        for (cin, cout, height, width) in [(64, 64, 60, 80), (64, 32, 60, 80), (64, 16, 60, 80), (16, 16, 60, 80),
                                           (64, 64, 30, 40), (64, 32, 30, 40), (16, 16, 30, 40), (64, 32, 15, 20)] {
            let values = (0..<cout * cin * 9).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) * 0.2 }
            let bias = (0..<cout).map { _ in Float(Conv2DTimingTests.unit(&random) - 0.5) }
            let c = NetworkGraph.Convolution(weights: 0, bias: 1, outputChannels: cout, kernelHeight: 3, kernelWidth: 3,
                                             strideY: 1, strideX: 1, padding: .init(1), groups: 1, activation: .init(.leakyRelu, alpha: 0.1))
            let graph = NetworkGraph(input: 0, output: 1, tensorCount: 2,
                                     nodes: [.init(name: "conv", operation: .convolution(c), inputs: [0], output: 1)],
                                     constants: ModelConstants(values: [values, bias]))
            let plan = try GraphLowering.lower(graph, input: .init(channels: cin, height: height, width: width))
            let input = (0..<cin * height * width).map { _ in Float(Conv2DTimingTests.unit(&random)) }
            var times: [[Double]] = [[], []]
            for _ in 0..<Self.rounds {
                for (n, backend) in [winograd, direct].enumerated() {
                    _ = try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [])
                    times[n].append((backend.lastTimings?.dispatches ?? []).filter { $0.label.contains("conv2d") }
                        .reduce(0) { $0 + $1.nanoseconds } * 1e-6)
                }
            }
            let w = ProfileReport.median(times[0]), d = ProfileReport.median(times[1])
            let ratios = zip(times[1], times[0]).map { $0 / $1 }.sorted()
            let flops = 2.0 * Double(cout * cin * 9 * height * width)
            totals = (totals.winograd + w, totals.direct + d, totals.flops + flops)
            print(String(format: "  %d->%d %dx%d: Winograd %.2f ms (%.1f GFLOP/s), direct %.2f ms (%.1f), direct/Winograd per round: median %.2f (%.2f-%.2f)",
                         cin, cout, width, height, w, flops / w * 1e-6, d, flops / d * 1e-6, ProfileReport.median(ratios),
                         ratios.first!, ratios.last!))
        }
        print(String(format: "all: Winograd %.2f ms (%.1f GFLOP/s), direct %.2f ms (%.1f), direct/Winograd %.2f",
                     totals.winograd, totals.flops / totals.winograd * 1e-6, totals.direct, totals.flops / totals.direct * 1e-6,
                     totals.direct / totals.winograd))
    }
}
