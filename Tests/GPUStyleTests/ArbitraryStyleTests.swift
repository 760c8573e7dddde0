import XCTest
@testable import GPUStyle

/// `ArbitraryStyle`: the peer's style preprocessing (centre square, PIL LANCZOS to 256x256)
/// against PIL's own output, and the style vector of a whole picture against onnxruntime's on
/// PIL's preparation (tools/make_arbitrary_style_fixtures.py), on the CPU path and on Vulkan.
final class ArbitraryStyleTests: GraphOpTestCase {
    static var root: URL { Fixtures.root.appendingPathComponent("arbitrary-style") }

    func testStyleInputMatchesPIL() throws {
        let source = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        XCTAssertEqual([source.width, source.height], [150, 100])
        let pil = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_style.png").path)
        let ours = ArbitraryStyle.styleInput(source)
        XCTAssertEqual(ours.count, pil.rgb.count)
        let levels = zip(ours, pil.rgb).map { Int((abs($0 - $1) * 255).rounded()) }
        let off = levels.filter { $0 > 0 }.count
        print("style input vs PIL LANCZOS: \(off) of \(levels.count) values a level off, at most \(levels.max()!)")
        XCTAssertLessThanOrEqual(levels.max()!, 1)
        XCTAssertLessThanOrEqual(Double(off) / Double(levels.count), 0.01)
    }

    func testStyleVectorOfAPicture() throws {
        let source = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        let expected = try Fixtures.tensors("arbitrary-style/vectors.gpsw")["preprocess_vector"]!.values
        try forEachBackend { backend, name in
            let vector = try ArbitraryStyle(backend: backend).styleVector(source)
            XCTAssertEqual(vector.count, ArbitraryStyle.vectorLength)
            let worst = zip(vector, expected).map { abs($0 - $1) }.max()!
            print("style vector of a picture, \(name): max |diff| \(worst) from onnxruntime on PIL's preparation")
            XCTAssertLessThanOrEqual(worst, 2 * ArbitraryStyleParityTests.vectorQuantum * 1.01, name)
        }
        let float = try ArbitraryStyle(backend: CPUBackend(weights: []), quantization: .float).styleVector(source)
        XCTAssertEqual(float.count, ArbitraryStyle.vectorLength)
    }

    /// `stylize` on a 384x384 photo (no resize either way) is the transform on it, rounded to 8
    /// bits as the peer rounds: identical to running the plan directly; its distance from
    /// onnxruntime's output for the first pair is printed (pair 0 is the fixtures' most chaotic:
    /// onnxruntime against itself with its weight scales one ulp up moves 5.9/255 there).
    func testStylizeAtTheTransformSize() throws {
        let (content, w, h) = try ArbitraryStyleParityTests.doubledInput("content_00.png")
        XCTAssertEqual([w, h], [384, 384])
        let photo = Image(width: w, height: h, rgb: content)
        let vector = Array(try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!.values[0..<100])
        let expected = try ImageIO.read(path: Self.root.appendingPathComponent("output_00.png").path)
        let out = try ArbitraryStyle(backend: CPUBackend(weights: [])).stylize(photo, styleVector: vector)
        XCTAssertEqual([out.width, out.height], [384, 384])
        // The peer writes (x * 255 + 0.5) truncated; onnxruntime's raw output is k / 256.
        let reference = expected.rgb.map { v -> Float in
            let k = (v * 255).rounded() / 256
            return (min(max(k, 0), 1) * 255 + 0.5).rounded(.down) / 255
        }
        let mean = zip(out.rgb, reference).map { abs($0 - $1) }.reduce(0, +) / Float(reference.count)
        print("stylize at 384x384 vs onnxruntime: mean |diff| \(mean * 255)/255")
        let model = try ModelLibrary.builtin("arbitrary_transform")
        let plan = try GraphLowering.lower(model.graph, input: .init(channels: 3, height: 384, width: 384))
        let direct = try CPUBackend(weights: []).run(plan, inputs: [.input: content, .parameters: vector], normParameters: [],
                                                     affine: nil, outputs: [.result])[.result]!
        XCTAssertEqual(out.rgb, direct.map { (min(max($0, 0), 1) * 255 + 0.5).rounded(.down) / 255 })
        // A photo of another size comes back at its size.
        let small = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        let styled = try ArbitraryStyle(backend: CPUBackend(weights: [])).stylize(small, styleVector: vector)
        XCTAssertEqual([styled.width, styled.height], [150, 100])
    }

    /// Fake quantisations fused into the epilogues of the steps before them, the predictor's
    /// inverted residual blocks fused with them inside, and the transform's quantisations of
    /// reflection paddings of maps already on their grid dropped (GraphLowering
    /// .fusingFakeQuantization) change no value: the fused and unfused plans of the predictor at
    /// 256x256 and of the transform at 384x384 give identical outputs, bit for bit, on the CPU
    /// on every instruction set (with the blocks the CPU runs fused) and on Vulkan.
    func testFusedQuantizationChangesNoValue() throws {
        let vector = Array(try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!.values[0..<100])
        let cases: [(String, String, Int, [ExecutionPlan.Buffer: [Float]])] = [
            ("predictor 256x256", ArbitraryStyle.builtInPredictor, 256,
             [.input: try ArbitraryStyleParityTests.doubledInput("style_00.png").tensor]),
            ("transform 384x384", ArbitraryStyle.builtInTransform, 384,
             [.input: try ArbitraryStyleParityTests.paddedContent(0).tensor, .parameters: vector]),
        ]
        for (name, model, side, inputs) in cases {
            let graph = try ModelLibrary.builtin(model).graph
            let shape = NetworkGraph.Shape(channels: 3, height: side, width: side)
            let unfused = try GraphLowering.lower(graph, input: shape, fusingQuantization: false)
            let fused = try GraphLowering.lower(graph, input: shape)
            func count(_ plan: ExecutionPlan, _ op: String) -> Int { plan.steps.filter { $0.opName == op }.count }
            print("\(name): \(unfused.steps.count) steps with \(count(unfused, "fake_quant")) fake_quant unfused, "
                  + "\(fused.steps.count) with \(count(fused, "fake_quant")) fused (\(count(fused, "inverted_residual")) inverted_residual)")
            XCTAssertLessThan(count(fused, "fake_quant"), count(unfused, "fake_quant") / 4, name)
            func compare(_ backend: NetworkBackend, _ label: String) throws {
                let a = try backend.run(unfused, inputs: inputs, normParameters: [], affine: nil, outputs: [.result])[.result]!
                let b = try backend.run(fused, inputs: inputs, normParameters: [], affine: nil, outputs: [.result])[.result]!
                XCTAssertEqual(a.count, b.count, label)
                XCTAssertEqual(zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count, 0, "\(label): values that differ")
            }
            try InstructionSet.forEachSupported { isa in
                let cpu = CPUBackend(weights: [])
                try compare(cpu, "\(name), cpu \(isa)")
                if count(fused, "inverted_residual") > 0 { XCTAssertGreaterThan(cpu.fusedBlockRuns, 0, "\(name), cpu \(isa)") }
            }
            try forEachBackend { backend, label in if label != "cpu" { try compare(backend, "\(name), \(label)") } }
        }
    }

    /// Opt-in (GPUSTYLE_ARBITRARY_BENCH=1): the predictor at 256x256 and the transform at 384x384
    /// and 1024x768 (W x H), each plan with its fake quantisations fused and unfused, in
    /// alternating rounds after a warm-up (min, median and max ms), on each backend; then the CPU's
    /// time per kind of step in one run of each plan. It measures, it checks nothing.
    func testPredictorTiming() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_ARBITRARY_BENCH"] == "1" else {
            throw XCTSkip("set GPUSTYLE_ARBITRARY_BENCH=1 to measure")
        }
        let style = try ArbitraryStyleParityTests.doubledInput("style_00.png").tensor
        let content = try ArbitraryStyleParityTests.paddedContent(0).tensor
        let vector = [Float](repeating: 0.5, count: 100)
        /// The 384x384 content repeated (mirrored) to a W x H map.
        func wide(_ width: Int, _ height: Int) -> [Float] {
            func mirror(_ i: Int) -> Int { let m = i % 766; return m < 384 ? m : 766 - m }
            var out = [Float](repeating: 0, count: 3 * width * height)
            for c in 0..<3 { for y in 0..<height { for x in 0..<width {
                out[(c * height + y) * width + x] = content[(c * 384 + mirror(y)) * 384 + mirror(x)]
            } } }
            return out
        }
        let cases: [(String, String, NetworkGraph.Shape, [ExecutionPlan.Buffer: [Float]], cpuRounds: Int, vulkanRounds: Int)] = [
            ("predictor 256x256", ArbitraryStyle.builtInPredictor, .init(channels: 3, height: 256, width: 256), [.input: style], 11, 5),
            ("transform 384x384", ArbitraryStyle.builtInTransform, .init(channels: 3, height: 384, width: 384),
             [.input: content, .parameters: vector], 7, 3),
            ("transform 1024x768", ArbitraryStyle.builtInTransform, .init(channels: 3, height: 768, width: 1024),
             [.input: wide(1024, 768), .parameters: vector], 5, 2),
        ]
        let rounds = Int(ProcessInfo.processInfo.environment["GPUSTYLE_ARBITRARY_ROUNDS"] ?? "")
        try forEachBackend { backend, name in
            for (label, model, shape, inputs, cpuRounds, vulkanRounds) in cases {
                let graph = try ModelLibrary.builtin(model).graph
                let plans = [("unfused", try GraphLowering.lower(graph, input: shape, fusingQuantization: false)),
                             ("fused", try GraphLowering.lower(graph, input: shape))]
                var times = [[Double]](repeating: [], count: plans.count)
                func run(_ plan: ExecutionPlan) throws -> Double {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try backend.run(plan, inputs: inputs, normParameters: [], affine: nil, outputs: [.result])
                    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                }
                for (_, plan) in plans { _ = try run(plan) }
                for round in 0..<(rounds ?? (name == "cpu" ? cpuRounds : vulkanRounds)) {
                    // Alternating which plan goes first.
                    for i in plans.indices { let k = (i + round) % plans.count; times[k].append(try run(plans[k].1)) }
                }
                for (i, (kind, _)) in plans.enumerated() {
                    let sorted = times[i].sorted()
                    print(String(format: "arbitrary %@ %@ %@: min %.1f median %.1f max %.1f ms (%d runs)", label, name, kind,
                                 sorted.first!, sorted[sorted.count / 2], sorted.last!, sorted.count))
                }
                guard let cpu = backend as? CPUBackend else { continue }
                for (kind, plan) in plans {
                    var byOp: [String: (Double, Int)] = [:]
                    cpu.stepObserver = { _, step, seconds in
                        let op = step.opName + (step.isQuantizedEpilogue ? " +fq" : "")
                        byOp[op, default: (0, 0)].0 += seconds * 1000
                        byOp[op, default: (0, 0)].1 += 1
                    }
                    _ = try run(plan)
                    cpu.stepObserver = nil
                    let rows = byOp.sorted { $0.value.0 > $1.value.0 }
                        .map { String(format: "%@ x%d %.2f", $0.key, $0.value.1, $0.value.0) }
                    print("arbitrary \(label) cpu \(kind) by step (ms): " + rows.joined(separator: ", "))
                }
            }
        }
    }
}

private extension ExecutionPlan.Step {
    /// Whether the step ends with a fused fake quantisation (for the timing's breakdown).
    var isQuantizedEpilogue: Bool {
        switch self {
        case .conv2d(let s): s.quantize != nil
        case .add(let s): s.quantize != nil
        case .activation(let s): s.quantize != nil
        case .invertedResidual(let s): s.isQuantized
        default: false
        }
    }
}
