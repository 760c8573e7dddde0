import XCTest
@testable import GPUStyle

/// QDQ import (`ONNXQuantization.swift`) on a small int8 model in TensorFlow's layout
/// (tools/make_qdq_fixtures.py): NHWC input, per-channel int8 and uint8 weights, int32 biases,
/// activation QuantizeLinear/DequantizeLinear pairs (one through a Reshape), against onnxruntime
/// with fake quantisation and with the pairs removed (`Quantization.float`).
final class ONNXQuantizationTests: GraphOpTestCase {
    func testStructure() throws {
        let (graph, shape) = try ONNXImporter.graph(from: ONNXImporterTests.load("qdq_small.onnx"), source: "qdq_small.onnx")
        XCTAssertEqual(shape, .init(channels: 3, height: 9, width: 11), "the NHWC input read as [C][H][W]")
        XCTAssertEqual(graph.nodes.map(\.operation.name), [
            "fake_quant", "conv2d", "relu6", "fake_quant", "conv2d", "fake_quant", "global_average_pool", "fake_quant",
        ])
        guard case .fakeQuantize(let input) = graph.nodes[0].operation, case .fakeQuantize(let relu) = graph.nodes[3].operation,
              case .convolution(let conv) = graph.nodes[1].operation else { return XCTFail("unexpected ops") }
        XCTAssertEqual(input, .int8(scale: 1 / 255, zeroPoint: -128))
        XCTAssertEqual(relu, .uint8(scale: 0.05, zeroPoint: 3))
        XCTAssertEqual(conv.padding, .init(top: 0, left: 0, bottom: 1, right: 1))
        let (float, _) = try ONNXImporter.graph(from: ONNXImporterTests.load("qdq_small.onnx"), source: "qdq_small.onnx",
                                                quantization: .float)
        XCTAssertEqual(float.nodes.map(\.operation.name), ["conv2d", "relu6", "conv2d", "global_average_pool"])
        XCTAssertEqual(graph.withoutFakeQuantization().nodes.map(\.operation), float.nodes.map(\.operation))
    }

    func testMatchesOnnxRuntime() throws {
        let t = try Fixtures.tensors("onnx/qdq_small.gpsw")
        let data = try ONNXImporterTests.load("qdq_small.onnx")
        for (mode, key) in [(ONNXImporter.Quantization.fakeQuantize, "output"), (.float, "output_float")] {
            let (graph, shape) = try ONNXImporter.graph(from: data, source: "qdq_small.onnx", quantization: mode)
            let expected = t[key]!.values
            let reference = try GraphReference.run(graph, input: ONNXImporterTests.reference(t["input"]!))
            XCTAssertLessThanOrEqual(ONNXImporterTests.maxDifference(reference.values, expected), 1e-5, "reference \(mode)")
            let plan = try GraphLowering.lower(graph, input: shape!)
            try forEachBackend { backend, name in
                let out = try backend.run(plan, inputs: [.input: t["input"]!.values], normParameters: [], affine: nil,
                                          outputs: [.result])[.result]!
                XCTAssertLessThanOrEqual(ONNXImporterTests.maxDifference(out, expected), 1e-5, "\(name) \(mode)")
            }
        }
    }

    func testMismatchedDequantizeIsNamed() throws {
        var model = try Onnx_ModelProto(serializedBytes: ONNXImporterTests.load("qdq_small.onnx"))
        // The ReLU's DequantizeLinear reads the scale of another pair.
        let index = model.graph.node.firstIndex { $0.opType == "DequantizeLinear" && $0.input[0] == "a1_q" }!
        model.graph.node[index].input[1] = "a2_s"
        XCTAssertThrowsError(try ONNXImporter.graph(from: model.serializedData(), source: "bad.onnx")) { error in
            XCTAssertTrue("\(error)".contains("DequantizeLinear with scale 0.02"), "\(error)")
        }
    }
}
