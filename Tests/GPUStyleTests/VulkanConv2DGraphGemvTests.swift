import XCTest
@testable import GPUStyle

/// conv2d_graph_gemv.comp (VulkanConv2DGraphGemv.swift): dense layers on a 1-pixel output map
/// (a window covering the whole input) against the CPU path (itself checked against torch by
/// Conv2DTests), with VulkanConv2DGraphTests' tolerance: odd channel counts (scalar views, a
/// ragged last block of outputs), MobileNetV2's 1280 -> 1000 classifier, a 3x3 window over a
/// 3x3 map, bias, activations and fake quantisation, each as a plan of its own and inside a
/// pool (regions off vec4 boundaries).
final class VulkanConv2DGraphGemvTests: VulkanTestCase {
    private struct Layer {
        var cin, cout, size: Int
        var activation: Activation = .relu6
        var quantize: NetworkGraph.FakeQuantize?
    }

    private func check(_ l: Layer, _ label: String) throws {
        var random = SeededRandom(seed: UInt64(l.cin * 31 + l.cout))
        func values(_ n: Int, _ scale: Double) -> [Float] {
            (0..<n).map { _ in Float((Double(random.next() >> 11) * 0x1p-53 - 0.5) * scale) }
        }
        var t = [
            "input": NamedTensor(name: "input", shape: [l.cin, l.size, l.size], values: values(l.cin * l.size * l.size, 2)),
            "weight": NamedTensor(name: "weight", shape: [l.cout, l.cin, l.size, l.size],
                                  values: values(l.cout * l.cin * l.size * l.size, 0.3)),
            "bias": NamedTensor(name: "bias", shape: [l.cout], values: values(l.cout, 1)),
            "params": NamedTensor(name: "params", shape: [10],
                                  values: [1, 1, 0, 0, 0, 0, 1, Float(l.activation.rawValue), 0.1, 0]),
            "output": NamedTensor(name: "output", shape: [l.cout, 1, 1], values: []),
        ]
        if l.activation == .prelu { t["slopes"] = NamedTensor(name: "slopes", shape: [l.cout], values: values(l.cout, 0.5)) }
        for inPool in [false, true] {
            var made = Conv2DFixtures.conv2d(t, inPool: inPool)
            guard case .conv2d(let conv) = made.plan.steps[0] else { return XCTFail("not a conv2d plan") }
            XCTAssertTrue(VulkanBackend.runsGemv(conv), label)
            if let q = l.quantize { made.plan = Conv2DFixtures.quantizing(made.plan, by: q) }
            let cpu = try Conv2DFixtures.run(CPUBackend(weights: []), made)
            let gpu = try Conv2DFixtures.run(VulkanBackend(context: context, weights: []), made)
            VulkanConv2DGraphTests.assertMatchesCPUPath(gpu, cpu, quantum: l.quantize?.scale ?? 0,
                                                        "\(label)\(inPool ? " in the pool" : "")")
        }
    }

    func testDenseLayers() throws {
        try check(Layer(cin: 37, cout: 19, size: 1), "37 -> 19")
        try check(Layer(cin: 1280, cout: 1000, size: 1, activation: .identity), "1280 -> 1000")
        try check(Layer(cin: 64, cout: 13, size: 1, activation: .sigmoid), "64 -> 13 sigmoid")
        try check(Layer(cin: 37, cout: 20, size: 1, activation: .identity), "37 -> 20")
        try check(Layer(cin: 5, cout: 3, size: 1, activation: .prelu), "5 -> 3 PReLU")
        try check(Layer(cin: 32, cout: 20, size: 3), "3x3 window 32 -> 20")
        try check(Layer(cin: 40, cout: 24, size: 1, quantize: .int8(scale: 0.05, zeroPoint: 3)), "40 -> 24 fake-quantised")
    }

    /// Layers that are not dense on a 1-pixel map keep their shaders.
    func testRoutesOnlyDenseLayers() throws {
        func conv(_ size: Int, kernel: Int, pad: Int) -> ExecutionPlan.Conv2D {
            let t = [
                "input": NamedTensor(name: "input", shape: [8, size, size], values: [Float](repeating: 0, count: 8 * size * size)),
                "weight": NamedTensor(name: "weight", shape: [4, 8, kernel, kernel],
                                      values: [Float](repeating: 0, count: 32 * kernel * kernel)),
                "bias": NamedTensor(name: "bias", shape: [4], values: [0, 0, 0, 0]),
                "params": NamedTensor(name: "params", shape: [10], values: [1, 1, Float(pad), Float(pad), Float(pad), Float(pad), 1, 0, 0, 0]),
                "output": NamedTensor(name: "output", shape: [4, size + 2 * pad - kernel + 1, size + 2 * pad - kernel + 1], values: []),
            ]
            guard case .conv2d(let c) = Conv2DFixtures.conv2d(t, inPool: false).plan.steps[0] else { preconditionFailure("not a conv2d plan") }
            return c
        }
        XCTAssertTrue(VulkanBackend.runsGemv(conv(1, kernel: 1, pad: 0)))
        XCTAssertFalse(VulkanBackend.runsGemv(conv(2, kernel: 1, pad: 0)), "a 2x2 map")
        XCTAssertFalse(VulkanBackend.runsGemv(conv(1, kernel: 3, pad: 1)), "padded")
        XCTAssertFalse(VulkanBackend.runsGemv(conv(8, kernel: 1, pad: 0)), "an 8x8 map")
    }

    /// MobileNetV2's classifier (the built-in classify network's 1280 -> 1000 layer) runs here.
    func testClassifierRunsGemv() throws {
        let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: CPUBackend(weights: []))
        let plan = try classifier.lowered()
        let backend = try VulkanBackend(context: context, weights: [])
        let dense = plan.steps.flatMap(\.parts).compactMap { step -> ExecutionPlan.Conv2D? in
            if case .conv2d(let c) = step, c.output.height * c.output.width == 1 { return c }
            return nil
        }
        XCTAssertEqual(dense.count, 1)
        for conv in dense {
            XCTAssertEqual(backend.kernelNote(for: .conv2d(conv), in: plan), "[gemv]", "\(conv)")
        }
    }
}
