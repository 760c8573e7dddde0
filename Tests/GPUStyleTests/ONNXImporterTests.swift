import Foundation
import SwiftProtobuf
import XCTest
@testable import GPUStyle

/// ONNX models exported by torch (tools/make_onnx_fixtures.py) and built here in code, read by
/// `ONNXImporter`; numbers are checked with `GraphReference` against torch's eval-mode outputs.
final class ONNXImporterTests: XCTestCase {
    static func load(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.root.appendingPathComponent("onnx/\(name)"))
    }

    static func importFixture(_ name: String) throws -> (graph: NetworkGraph, inputShape: NetworkGraph.Shape?) {
        try ONNXImporter.graph(from: load(name), source: name)
    }

    static func reference(_ tensor: NamedTensor) -> GraphReference.Tensor {
        let dims = tensor.shape + [Int](repeating: 1, count: max(0, 3 - tensor.shape.count))
        return .init(shape: .init(channels: dims[0], height: dims[1], width: dims[2]), values: tensor.values)
    }

    static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "\(a.count) vs \(b.count) values")
        return zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    func testSmallCNNStructure() throws {
        let (graph, inputShape) = try Self.importFixture("small_cnn.onnx")
        XCTAssertEqual(inputShape, .init(channels: 3, height: 16, width: 16))
        // Three BatchNormalizations folded away, Clip [0, 6] -> relu6, MatMul + Add -> one FC.
        XCTAssertEqual(graph.nodes.map(\.operation.name), [
            "conv2d", "relu6", "conv2d (groups 8)", "relu6", "conv2d", "add", "global_average_pool",
            "fully_connected", "relu", "fully_connected", "softmax",
        ])
        guard case .convolution(let stem) = graph.nodes[0].operation,
              case .fullyConnected(_, let bias, let outputs) = graph.nodes[9].operation else {
            return XCTFail("unexpected ops")
        }
        XCTAssertEqual([stem.strideY, stem.strideX, stem.groups, stem.kernelHeight, stem.outputChannels], [2, 2, 1, 3, 8])
        XCTAssertEqual(stem.padding, .init(1))
        XCTAssertNotNil(stem.bias, "the folded batch norm gives the bias-free conv a bias")
        XCTAssertEqual(outputs, 5)
        XCTAssertNotNil(bias, "the Add after MatMul becomes the FC's bias")
        XCTAssertEqual(graph.nodes[5].inputs.sorted(), [graph.nodes[1].output, graph.nodes[4].output].sorted(),
                       "the residual add reads the stem's relu6 and the projection")
        let shapes = try graph.shapes(input: inputShape!)
        XCTAssertEqual(shapes[graph.nodes[0].output], .init(channels: 8, height: 8, width: 8))
        XCTAssertEqual(shapes[graph.output], .init(channels: 5, height: 1, width: 1))
        _ = try GraphLowering.lower(graph, input: inputShape!)
    }

    /// The folded stem and depthwise convolutions reproduce torch's eval-mode Conv + BN.
    func testBatchNormFoldingMatchesTorch() throws {
        let (graph, _) = try Self.importFixture("small_cnn.onnx")
        let fixture = try Fixtures.tensors("onnx/small_cnn.gpsw")
        for (index, input, expected) in [(0, "input", "stem_bn"), (2, "stem_out", "dw_bn")] {
            guard case .convolution(let conv) = graph.nodes[index].operation else { return XCTFail("node \(index) is not a conv") }
            let out = GraphReference.convolution(Self.reference(fixture[input]!), conv, graph.constants)
            XCTAssertEqual(out.shape, Self.reference(fixture[expected]!).shape)
            let difference = Self.maxDifference(out.values, fixture[expected]!.values)
            XCTAssertLessThan(difference, 1e-4, "\(expected)")
            // Without the fold (raw weights, no bias) the result is far off: the check can fail.
            var raw = conv
            raw.bias = nil
            let unfolded = GraphReference.convolution(Self.reference(fixture[input]!), raw, graph.constants)
            XCTAssertGreaterThan(Self.maxDifference(unfolded.values, fixture[expected]!.values), 0.1)
        }
    }

    func testSmallCNNOutputMatchesTorch() throws {
        let (graph, _) = try Self.importFixture("small_cnn.onnx")
        let fixture = try Fixtures.tensors("onnx/small_cnn.gpsw")
        let out = try GraphReference.run(graph, input: Self.reference(fixture["input"]!))
        XCTAssertEqual(out.shape, .init(channels: 5, height: 1, width: 1))
        XCTAssertLessThan(Self.maxDifference(out.values, fixture["output"]!.values), 1e-5)
    }

    func testMixedOpsStructure() throws {
        let (graph, inputShape) = try Self.importFixture("mixed_ops.onnx")
        XCTAssertEqual(inputShape, .init(channels: 4, height: 8, width: 8))
        XCTAssertEqual(graph.nodes.map(\.operation.name), [
            "conv2d", "prelu", "max_pool", "conv2d (groups 8)", "global_average_pool", "conv2d", "relu",
            "conv2d", "sigmoid", "channel_multiply", "hardSwish", "resize (nearest)", "conv2d", "leakyRelu",
            "concat", "conv_transpose", "resize (bilinear)", "pad", "softmax",
        ])
        let ops = graph.nodes.map(\.operation)
        guard case .convolution(let first) = ops[0], case .convolution(let bn) = ops[3], case .activation(let prelu) = ops[1],
              case .activation(let leaky) = ops[13] else { return XCTFail("unexpected ops") }
        XCTAssertEqual(first.padding, .init(1), "F.pad's pads computation is folded, and the Pad into the conv")
        XCTAssertEqual(first.paddingMode, .reflect)
        XCTAssertEqual(graph.nodes[0].inputs, [graph.input])
        XCTAssertEqual(ops[2], .maxPool(.init(kernel: 2, stride: 2)))
        XCTAssertEqual([bn.kernelHeight, bn.kernelWidth, bn.groups, bn.outputChannels], [1, 1, 8, 8],
                       "a batch norm after a pool is a depthwise 1x1 convolution")
        XCTAssertEqual(graph.constants[prelu.slopes!].count, 8)
        XCTAssertEqual(leaky.alpha, 0.1, accuracy: 1e-7)
        XCTAssertEqual(graph.nodes[9].inputs, [graph.nodes[3].output, graph.nodes[8].output],
                       "squeeze-excite: the map times the sigmoid's [C,1,1] scale")
        XCTAssertEqual(graph.nodes[10].inputs, [graph.nodes[9].output], "x * hardsigmoid(x) is HardSwish of x")
        XCTAssertEqual(ops[11], .resize(.nearest, scale: 2))
        XCTAssertEqual(ops[16], .resize(.bilinear, scale: 2))
        XCTAssertEqual(ops[17], .pad(.init(1), .zero), "a Pad read by no conv stays a pad")
        let shapes = try graph.shapes(input: inputShape!)
        XCTAssertEqual(shapes[graph.nodes[14].output], .init(channels: 12, height: 8, width: 8))
        XCTAssertEqual(shapes[graph.output], .init(channels: 6, height: 34, width: 34))
        _ = try GraphReference.run(graph, input: .init(shape: inputShape!, values: .init(repeating: 0, count: 256)))
        _ = try GraphLowering.lower(graph, input: inputShape!)
    }

    func testMixedOpsOutputMatchesTorch() throws {
        let (graph, _) = try Self.importFixture("mixed_ops.onnx")
        let fixture = try Fixtures.tensors("onnx/mixed_ops.gpsw")
        let out = try GraphReference.run(graph, input: Self.reference(fixture["input"]!))
        XCTAssertEqual(out.shape, Self.reference(fixture["output"]!).shape)
        XCTAssertLessThan(Self.maxDifference(out.values, fixture["output"]!.values), 1e-5)
        // The softmax at the end squeezes differences; each of these mistakes still shows.
        let mistakes: [(Int, NetworkGraph.Operation)] = [
            (1, .activation(.relu)), (10, .activation(.identity)), (11, .resize(.bilinear, scale: 2)),
            (16, .resize(.nearest, scale: 2)), (13, .activation(.relu)),
        ]
        guard case .convolution(var zeroPadded) = graph.nodes[0].operation else { return XCTFail() }
        zeroPadded.paddingMode = .zero
        for (index, wrong) in mistakes + [(0, .convolution(zeroPadded))] {
            var broken = graph
            broken.nodes[index].operation = wrong
            let output = try GraphReference.run(broken, input: Self.reference(fixture["input"]!))
            XCTAssertGreaterThan(Self.maxDifference(output.values, fixture["output"]!.values), 1e-4, "\(wrong)")
        }
    }

    func testUnsupportedOpsAreAllNamed() throws {
        XCTAssertThrowsError(try Self.importFixture("unsupported.onnx")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("unsupported ONNX ops: "), message)
            XCTAssertTrue(message.contains("Sin (node '/Sin')"), message)
            XCTAssertTrue(message.contains("Clip to [-1.0, 1.0] (only [0, 6] and [0, inf) map to an activation) (node '/Clip')"), message)
            XCTAssertTrue(message.contains("Floor (node '/Floor')"), message)
            XCTAssertFalse(message.contains("Add"), "nodes reading an unsupported result are not reported again: \(message)")
        }
    }

    /// Truncated files and random bytes give an error or (cut at a field boundary) a graph that
    /// still validates, never a crash.
    func testMalformedFilesGiveErrors() throws {
        let data = try Self.load("small_cnn.onnx")
        XCTAssertThrowsError(try ONNXImporter.graph(from: data.prefix(data.count / 2), source: "half.onnx")) { error in
            XCTAssertTrue("\(error)".hasPrefix("half.onnx: "), "\(error)")
        }
        XCTAssertThrowsError(try ONNXImporter.graph(from: Data(), source: "empty.onnx")) { error in
            XCTAssertEqual("\(error)", "empty.onnx: the model has no graph nodes (not an ONNX model?)")
        }
        var failures = 0
        for length in stride(from: 0, to: data.count, by: 7) {
            do {
                let (graph, shape) = try ONNXImporter.graph(from: data.prefix(length), source: "cut")
                if let shape { _ = try graph.shapes(input: shape) }
            } catch {
                failures += 1
            }
        }
        XCTAssertGreaterThan(failures, data.count / 7 - 3)
        var generator = SeededRandom(seed: 3)
        for length in [1, 2, 5, 16, 100, 1000, 5000] {
            for _ in 0..<20 {
                let bytes = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
                XCTAssertThrowsError(try ONNXImporter.graph(from: bytes, source: "random"))
            }
        }
        // Flipped, replaced, inserted and deleted bytes inside valid files (a 12,000-file run of
        // this loop found no crash; most give protobuf errors, about 7% still import and lower).
        for name in ["small_cnn.onnx", "mixed_ops.onnx", "unsupported.onnx"] {
            let original = [UInt8](try Self.load(name))
            for _ in 0..<200 {
                var bytes = original
                let kind = generator.index(below: 4)
                for _ in 0...generator.index(below: 4) {
                    let p = generator.index(below: bytes.count)
                    switch kind {
                    case 0: bytes[p] ^= UInt8(1 << generator.index(below: 8))
                    case 1: bytes[p] = UInt8(truncatingIfNeeded: generator.next())
                    case 2: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: p)
                    default: bytes.remove(at: p)
                    }
                }
                if let (graph, shape) = try? ONNXImporter.graph(from: Data(bytes), source: "mutated"), let shape {
                    XCTAssertNoThrow(try GraphLowering.lower(graph, input: shape))
                }
            }
        }
    }

    // MARK: - Models built here

    static func tensor(_ name: String, _ dims: [Int], _ values: [Float]) -> Onnx_TensorProto {
        var t = Onnx_TensorProto()
        t.name = name
        t.dims = dims.map { Int64($0) }
        t.dataType = 1
        t.floatData = values
        return t
    }

    static func ints(_ name: String, _ values: [Int]) -> Onnx_TensorProto {
        var t = Onnx_TensorProto()
        t.name = name
        t.dims = [Int64(values.count)]
        t.dataType = 7
        t.int64Data = values.map { Int64($0) }
        return t
    }

    static func node(_ op: String, _ inputs: [String], _ output: String, _ attributes: [Onnx_AttributeProto] = []) -> Onnx_NodeProto {
        var n = Onnx_NodeProto()
        n.opType = op
        n.name = output
        n.input = inputs
        n.output = [output]
        n.attribute = attributes
        return n
    }

    static func attribute(_ name: String, ints: [Int]? = nil, int: Int? = nil, string: String? = nil, float: Float? = nil) -> Onnx_AttributeProto {
        var a = Onnx_AttributeProto()
        a.name = name
        if let ints { a.ints = ints.map { Int64($0) }; a.type = .ints }
        if let int { a.i = Int64(int); a.type = .int }
        if let string { a.s = Data(string.utf8); a.type = .string }
        if let float { a.f = float; a.type = .float }
        return a
    }

    /// One input "x" of [1, C, H, W] (nil dims are symbolic), nodes, initializers, output "y".
    static func model(input dims: [Int?], _ nodes: [Onnx_NodeProto], _ initializers: [Onnx_TensorProto] = [],
                      opset: Int = 13) throws -> Data {
        var m = Onnx_ModelProto()
        m.irVersion = 7
        var opsetID = Onnx_OperatorSetIdProto()
        opsetID.version = Int64(opset)
        m.opsetImport = [opsetID]
        var input = Onnx_ValueInfoProto()
        input.name = "x"
        var type = Onnx_TypeProto.Tensor()
        type.elemType = 1
        type.shape.dim = dims.map { d in
            var dim = Onnx_TensorShapeProto.Dimension()
            if let d { dim.dimValue = Int64(d) } else { dim.dimParam = "n" }
            return dim
        }
        input.type.tensorType = type
        var output = Onnx_ValueInfoProto()
        output.name = "y"
        m.graph.input = [input]
        m.graph.output = [output]
        m.graph.node = nodes
        m.graph.initializer = initializers
        return try m.serializedData()
    }

    func testSamePaddingAndSymbolicInput() throws {
        let w = Self.tensor("w", [2, 1, 3, 3], .init(repeating: 0.5, count: 18))
        for (mode, expected) in [("SAME_UPPER", NetworkGraph.Padding(top: 0, left: 0, bottom: 1, right: 1)),
                                 ("SAME_LOWER", NetworkGraph.Padding(top: 1, left: 1, bottom: 0, right: 0))] {
            let data = try Self.model(input: [1, 1, 8, 8], [
                Self.node("Conv", ["x", "w"], "y", [Self.attribute("strides", ints: [2, 2]), Self.attribute("auto_pad", string: mode)]),
            ], [w])
            let (graph, shape) = try ONNXImporter.graph(from: data, source: mode)
            guard case .convolution(let c) = graph.nodes[0].operation else { return XCTFail() }
            XCTAssertEqual(c.padding, expected, mode)
            XCTAssertEqual(try graph.shapes(input: shape!)[graph.output], .init(channels: 2, height: 4, width: 4))
        }
        // Stride 1 SAME needs no size; stride 2 SAME on a symbolic size is named as unsupported.
        let symbolic = try Self.model(input: [nil, 1, nil, nil], [
            Self.node("Conv", ["x", "w"], "h", [Self.attribute("auto_pad", string: "SAME_UPPER")]),
            Self.node("Conv", ["h", "w2"], "y", [Self.attribute("strides", ints: [2, 2]), Self.attribute("auto_pad", string: "SAME_UPPER")]),
        ], [w, Self.tensor("w2", [2, 2, 3, 3], .init(repeating: 1, count: 36))])
        XCTAssertThrowsError(try ONNXImporter.graph(from: symbolic, source: "s")) { error in
            XCTAssertTrue("\(error)".contains("Conv with auto_pad SAME_UPPER and stride 2 on an input of unknown size (node 'y')"), "\(error)")
        }
        let batch2 = try Self.model(input: [2, 1, 8, 8], [Self.node("Relu", ["x"], "y")])
        XCTAssertThrowsError(try ONNXImporter.graph(from: batch2, source: "b")) { error in
            XCTAssertTrue("\(error)".contains("batch 2"), "\(error)")
        }
        let (graph, shape) = try ONNXImporter.graph(from: try Self.model(input: [nil, 3, nil, nil], [Self.node("Relu", ["x"], "y")]),
                                                    source: "symbolic")
        XCTAssertNil(shape)
        XCTAssertEqual(graph.nodes.map(\.operation), [.activation(.relu)])
    }

    func testClipRangesAndOpsetAttributes() throws {
        let cases: [(Float?, Float?, NetworkGraph.ActivationFunction?)] = [(0, 6, .relu6), (0, nil, .relu), (-1, 1, nil), (nil, 6, nil)]
        for (low, high, expected) in cases {
            var inits: [Onnx_TensorProto] = []
            if let low { inits.append(Self.tensor("lo", [], [low])) }
            if let high { inits.append(Self.tensor("hi", [], [high])) }
            let data = try Self.model(input: [1, 2, 4, 4], [Self.node("Clip", ["x", low == nil ? "" : "lo", high == nil ? "" : "hi"], "y")], inits)
            if let expected {
                XCTAssertEqual(try ONNXImporter.graph(from: data, source: "c").graph.nodes.map(\.operation), [.activation(expected)])
            } else {
                XCTAssertThrowsError(try ONNXImporter.graph(from: data, source: "c")) { XCTAssertTrue("\($0)".contains("Clip to ["), "\($0)") }
            }
        }
        // Opset 6: min/max are attributes.
        let old = try Self.model(input: [1, 2, 4, 4], [Self.node("Clip", ["x"], "y", [Self.attribute("min", float: 0), Self.attribute("max", float: 6)])],
                                 opset: 6)
        XCTAssertEqual(try ONNXImporter.graph(from: old, source: "c").graph.nodes.map(\.operation), [.activation(.relu6)])
    }

    func testGlobalPoolsReshapesAndGemm() throws {
        // ReduceMean [2, 3] keepdims 0 -> vector; Gemm without transB; Reshape to [1, C, 1, 1];
        // Mul of the map by that scale; AveragePool covering the map.
        let b = Self.tensor("b", [3, 2], [1, 2, 3, 4, 5, 6])
        let data = try Self.model(input: [1, 3, 4, 4], [
            Self.node("ReduceMean", ["x"], "m", [Self.attribute("axes", ints: [2, 3]), Self.attribute("keepdims", int: 0)]),
            Self.node("Gemm", ["m", "b"], "g", [Self.attribute("alpha", float: 2)]),
            Self.node("AveragePool", ["x"], "p", [Self.attribute("kernel_shape", ints: [4, 4])]),
            Self.node("Reshape", ["p", "shape"], "v"),
            Self.node("Concat", ["g", "v"], "y", [Self.attribute("axis", int: 1)]),
        ], [b, Self.ints("shape", [1, -1])])
        let (graph, shape) = try ONNXImporter.graph(from: data, source: "g")
        XCTAssertEqual(graph.nodes.map(\.operation.name), ["global_average_pool", "fully_connected", "global_average_pool", "concat"])
        guard case .fullyConnected(let w, nil, 2) = graph.nodes[1].operation else { return XCTFail("\(graph.nodes[1])") }
        XCTAssertEqual(graph.constants[w], [2, 6, 10, 4, 8, 12], "B [K, N] transposed to [N][K], times alpha")
        XCTAssertEqual(try graph.shapes(input: shape!)[graph.output], .init(channels: 5, height: 1, width: 1))

        let reshape4D = try Self.model(input: [1, 3, 4, 4], [Self.node("Reshape", ["x", "shape"], "y")], [Self.ints("shape", [1, 3, 2, 8])])
        XCTAssertThrowsError(try ONNXImporter.graph(from: reshape4D, source: "r")) {
            XCTAssertTrue("\($0)".contains("Reshape to [1, 3, 2, 8]"), "\($0)")
        }
        let normalise = try Self.model(input: [1, 3, 4, 4], [
            Self.node("Sub", ["x", "mean"], "s"), Self.node("Div", ["s", "std"], "y"),
        ], [Self.tensor("mean", [1, 3, 1, 1], [0.4, 0.5, 0.6]), Self.tensor("std", [1, 3, 1, 1], [0.2, 0.2, 0.2])])
        XCTAssertThrowsError(try ONNXImporter.graph(from: normalise, source: "n")) {
            XCTAssertTrue("\($0)".hasSuffix("unsupported ONNX ops: Sub (node 's')"), "\($0)")
        }
    }

    /// The patterns of PP-OCRv6's graphs (`gpustyle text`): GELU written out in five nodes is one
    /// activation; Div by a constant a scale; a 3x2 AveragePool a depthwise convolution; a map of
    /// height 1 squeezed, transposed to [N, W, C], multiplied by a [C, K] matrix and softmaxed
    /// over its last axis is a 1x1 convolution and a channel softmax on the map.
    func testSequenceHeadGeluAndAveragePoolPatterns() throws {
        let data = try Self.model(input: [nil, 2, 3, nil], [
            Self.node("Div", ["x", "sqrt2"], "d"), Self.node("Erf", ["d"], "e"), Self.node("Add", ["e", "one"], "a"),
            Self.node("Mul", ["x", "a"], "m"), Self.node("Mul", ["m", "half"], "g"),
            Self.node("Div", ["g", "four"], "q"),
            Self.node("AveragePool", ["q"], "p", [Self.attribute("kernel_shape", ints: [3, 2]), Self.attribute("strides", ints: [3, 2])]),
            Self.node("Squeeze", ["p"], "s", [Self.attribute("axes", ints: [2])]),
            Self.node("Transpose", ["s"], "t", [Self.attribute("perm", ints: [0, 2, 1])]),
            Self.node("MatMul", ["t", "w"], "mm"), Self.node("Add", ["mm", "b"], "l"),
            Self.node("Softmax", ["l"], "y", [Self.attribute("axis", int: 2)]),
        ], [Self.tensor("sqrt2", [], [1.4142135]), Self.tensor("one", [], [1]), Self.tensor("half", [], [0.5]),
            Self.tensor("four", [], [4]), Self.tensor("w", [2, 3], [1, 0, -1, 0, 1, 2]), Self.tensor("b", [3], [0.1, 0.2, 0.3])],
            opset: 11)
        let (graph, shape) = try ONNXImporter.graph(from: data, source: "ppocr")
        XCTAssertNil(shape)
        XCTAssertEqual(graph.nodes.map(\.operation.name), ["gelu", "conv2d (groups 2)", "conv2d (groups 2)", "conv2d", "softmax"])
        guard case .convolution(let pool) = graph.nodes[2].operation else { return XCTFail("\(graph.nodes[2])") }
        XCTAssertEqual([pool.kernelHeight, pool.kernelWidth, pool.strideY, pool.strideX], [3, 2, 3, 2])
        XCTAssertEqual(graph.constants[pool.weights], [Float](repeating: 1.0 / 6, count: 12))
        guard case .convolution(let head) = graph.nodes[3].operation else { return XCTFail("\(graph.nodes[3])") }
        XCTAssertEqual(graph.constants[head.weights], [1, 0, 0, 1, -1, 2], "[C, K] transposed to [K][C]")
        XCTAssertEqual(head.bias.map { graph.constants[$0] }, [0.1, 0.2, 0.3])
        let input = NetworkGraph.Shape(channels: 2, height: 3, width: 8)
        XCTAssertEqual(try graph.shapes(input: input)[graph.output], .init(channels: 3, height: 1, width: 4))
        // Against the formulas: each output position's softmax over 3 classes.
        let x = (0..<input.elementCount).map { Float($0 % 7) - 3 }
        let out = try GraphReference.run(graph, input: .init(shape: input, values: x)).values
        func gelu(_ v: Float) -> Double { 0.5 * Double(v) * (1 + erf(Double(v) / 2.0.squareRoot())) / 4 }
        for position in 0..<4 {
            var features = [Double](repeating: 0, count: 2)
            for c in 0..<2 { for y in 0..<3 { for dx in 0..<2 { features[c] += gelu(x[(c * 3 + y) * 8 + 2 * position + dx]) / 6 } } }
            let logits = [features[0] + 0.1, features[1] + 0.2, -features[0] + 2 * features[1] + 0.3]
            let sum = logits.map { exp($0) }.reduce(0, +)
            for k in 0..<3 { XCTAssertEqual(Double(out[k * 4 + position]), exp(logits[k]) / sum, accuracy: 1e-5) }
        }
        // A sequence read as a map, or softmaxed over its positions, is named.
        let wrong = try Self.model(input: [1, 2, 1, 4], [
            Self.node("Squeeze", ["x"], "s", [Self.attribute("axes", ints: [2])]),
            Self.node("Softmax", ["s"], "y", [Self.attribute("axis", int: 2)]),
        ], opset: 11)
        XCTAssertThrowsError(try ONNXImporter.graph(from: wrong, source: "w")) {
            XCTAssertTrue("\($0)".contains("Softmax at axis 2 of a [N, C, W] sequence"), "\($0)")
        }
    }

    func testConstantsOnMapsBecomeDepthwiseConvolutions() throws {
        let data = try Self.model(input: [1, 2, 3, 3], [
            Self.node("Mul", ["x", "k"], "m"), Self.node("Add", ["half", "m"], "y"),
        ], [Self.tensor("k", [1, 2, 1, 1], [2, 3]), Self.tensor("half", [], [0.5])])
        let (graph, _) = try ONNXImporter.graph(from: data, source: "k")
        XCTAssertEqual(graph.nodes.count, 1, "the Add folds into the Mul's depthwise convolution")
        guard case .convolution(let c) = graph.nodes[0].operation else { return XCTFail() }
        XCTAssertEqual([c.groups, c.kernelHeight], [2, 1])
        XCTAssertEqual(graph.constants[c.weights], [2, 3])
        XCTAssertEqual(graph.constants[c.bias!], [0.5, 0.5])
        // Conv, BatchNormalization, Mul: one convolution. A conv output also read elsewhere
        // (here through an Identity) is not changed: the Mul is its own depthwise convolution.
        let w = Self.tensor("w", [2, 2, 1, 1], [1, 2, 3, 4])
        let bn = ["g", "b", "mean", "var"].map { Self.tensor($0, [2], $0 == "var" ? [3, 3] : [1, 1]) }
        let chain = try Self.model(input: [1, 2, 3, 3], [
            Self.node("Conv", ["x", "w"], "c"), Self.node("BatchNormalization", ["c", "g", "b", "mean", "var"], "n"),
            Self.node("Mul", ["n", "k"], "y"),
        ], [w, Self.tensor("k", [2, 1, 1], [2, 3])] + bn)
        let folded = try ONNXImporter.graph(from: chain, source: "chain").graph
        guard folded.nodes.count == 1, case .convolution(let f) = folded.nodes[0].operation else { return XCTFail("\(folded.nodes)") }
        // scale = 1 / sqrt(3 + 1e-5) per channel, then * [2, 3]; bias = (0 - 1) * scale + 1, then * [2, 3].
        let s = 1 / (3 + 1e-5 as Float).squareRoot()
        for (got, want) in zip(folded.constants[f.weights], [2 * s, 4 * s, 9 * s, 12 * s]) { XCTAssertEqual(got, want, accuracy: 1e-6) }
        for (got, want) in zip(folded.constants[f.bias!], [2 * (1 - s), 3 * (1 - s)]) { XCTAssertEqual(got, want, accuracy: 1e-6) }
        let shared = try Self.model(input: [1, 2, 3, 3], [
            Self.node("Conv", ["x", "w"], "c"), Self.node("Identity", ["c"], "i"), Self.node("Mul", ["i", "k"], "m"),
            Self.node("Add", ["c", "m"], "y"),
        ], [w, Self.tensor("k", [2, 1, 1], [2, 3])])
        let unfolded = try ONNXImporter.graph(from: shared, source: "shared").graph
        XCTAssertEqual(unfolded.nodes.map(\.operation.name), ["conv2d", "conv2d (groups 2)", "add"])
        guard case .convolution(let c0) = unfolded.nodes[0].operation else { return XCTFail() }
        XCTAssertEqual(unfolded.constants[c0.weights], [1, 2, 3, 4])

        let spatial = try Self.model(input: [1, 2, 3, 3], [Self.node("Add", ["x", "k"], "y")],
                                     [Self.tensor("k", [1, 1, 3, 3], .init(repeating: 1, count: 9))])
        XCTAssertThrowsError(try ONNXImporter.graph(from: spatial, source: "s")) {
            XCTAssertTrue("\($0)".contains("only per-channel constants map"), "\($0)")
        }
    }

    func testTensorEncodings() throws {
        // float16 in raw_data and in int32_data: 1, -2, 0.5, 65504, the smallest subnormal.
        let halves: [UInt16] = [0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001]
        let expected: [Float] = [1, -2, 0.5, 65504, 0x1p-24]
        var t = Onnx_TensorProto()
        t.dims = [5]
        t.dataType = 10
        t.rawData = Data(halves.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] })
        XCTAssertEqual(try ONNXTensor(t, what: "t").floats, expected)
        t.clearRawData()
        t.int32Data = halves.map { Int32($0) }
        XCTAssertEqual(try ONNXTensor(t, what: "t").floats, expected)
        // float32 raw_data, little-endian.
        t = Onnx_TensorProto()
        t.dims = [2]
        t.dataType = 1
        t.rawData = Data([Float(1.5), -3].flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) })
        XCTAssertEqual(try ONNXTensor(t, what: "t").floats, [1.5, -3])
        t.rawData = Data([0, 0, 0])
        XCTAssertThrowsError(try ONNXTensor(t, what: "w")) { XCTAssertTrue("\($0)".contains("raw_data holds 3 bytes, expected 8"), "\($0)") }
        t.clearRawData()
        t.floatData = [1]
        XCTAssertThrowsError(try ONNXTensor(t, what: "w")) { XCTAssertTrue("\($0)".contains("holds 1 values, expected 2"), "\($0)") }
        t.dataLocation = .external
        XCTAssertThrowsError(try ONNXTensor(t, what: "w")) { XCTAssertTrue("\($0)".contains("external file"), "\($0)") }
        t = Onnx_TensorProto()
        t.dims = [1 << 20, 1 << 20]
        t.dataType = 1
        XCTAssertThrowsError(try ONNXTensor(t, what: "huge"))
    }

    /// The "light" model-zoo networks the pip onnx package ships for its backend tests (opset 9,
    /// weights made by ConstantOfShape, which the importer folds); skipped without that package.
    func testOnnxPackageModelZooImports() throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import onnx, os; print(os.path.dirname(onnx.__file__))"]
        let pipe = Pipe()
        python.standardOutput = pipe
        python.standardError = FileHandle.nullDevice
        do { try python.run() } catch { throw XCTSkip("cannot run python3: \(error)") }
        let onnxDir = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        python.waitUntilExit()
        let dir = onnxDir + "/backend/test/data/light/"
        try XCTSkipUnless(python.terminationStatus == 0 && FileManager.default.fileExists(atPath: dir + "light_vgg19.onnx"),
                          "the pip onnx package is not installed")
        // (file, node count) for the ones that map; the error's start for the others.
        let imports = [("light_resnet50.onnx", 53 + 49 + 16 + 4), ("light_vgg19.onnx", 16 + 18 + 5 + 3 + 1),
                       ("light_squeezenet.onnx", 26 + 26 + 3 + 8 + 2),
                       // Its transition layers' 2x2 AveragePools are depthwise convolutions.
                       ("light_densenet121.onnx", 367)]
        for (file, count) in imports {
            let (graph, shape) = try ONNXImporter.graph(from: Data(contentsOf: URL(fileURLWithPath: dir + file)), source: file)
            XCTAssertEqual(graph.nodes.count, count, file)
            XCTAssertEqual(try graph.shapes(input: shape!)[graph.output], .init(channels: 1000, height: 1, width: 1), file)
            _ = try GraphLowering.lower(graph, input: shape!)
        }
        let failures = [("light_bvlc_alexnet.onnx", "unsupported ONNX ops: LRN (node 'n2')"),
                        ("light_shufflenet.onnx", "unsupported ONNX ops: Reshape to [1, 4, 28, 56, 56]")]
        for (file, message) in failures {
            XCTAssertThrowsError(try ONNXImporter.graph(from: Data(contentsOf: URL(fileURLWithPath: dir + file)), source: file)) {
                XCTAssertTrue("\($0)".hasPrefix("\(file): \(message)"), "\($0)")
            }
        }
    }

    /// MobileNetV2 from `python3 tools/make_mobilenet.py --onnx /tmp/mobilenet_v2.onnx` (or the
    /// path in GPUSTYLE_MOBILENET_ONNX); skipped when the file is absent.
    func testMobileNetV2Imports() throws {
        let path = ProcessInfo.processInfo.environment["GPUSTYLE_MOBILENET_ONNX"] ?? "/tmp/mobilenet_v2.onnx"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: path), "\(path) is absent")
        let (graph, inputShape) = try ONNXImporter.graph(from: Data(contentsOf: URL(fileURLWithPath: path)), source: path)
        XCTAssertEqual(inputShape, .init(channels: 3, height: 224, width: 224))
        let names = graph.nodes.map(\.operation.name)
        // 52 convolutions (BN folded), 35 ReLU6, 10 residual adds, the pool and the classifier.
        XCTAssertEqual(names.filter { $0.hasPrefix("conv2d") }.count, 52)
        XCTAssertEqual(names.filter { $0 == "relu6" }.count, 35)
        XCTAssertEqual(names.filter { $0 == "add" }.count, 10)
        XCTAssertEqual(names.filter { $0 == "global_average_pool" }.count, 1)
        XCTAssertEqual(names.last, "fully_connected")
        XCTAssertEqual(graph.nodes.count, 52 + 35 + 10 + 2)
        XCTAssertEqual(try graph.shapes(input: inputShape!)[graph.output], .init(channels: 1000, height: 1, width: 1))
        _ = try GraphLowering.lower(graph, input: inputShape!)
    }
}
