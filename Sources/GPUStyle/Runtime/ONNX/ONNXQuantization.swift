import Foundation

/// Quantised (QDQ) ONNX models, as onnxruntime's quantiser and tf2onnx write them (semantics
/// from the ONNX operator docs, QuantizeLinear and DequantizeLinear):
///
/// - DequantizeLinear of a constant (int8/uint8 weights, int32 biases; one scale, or one per
///   slice along `axis`) is folded at import into the float constant onnxruntime computes,
///   (x - zero_point) * scale in float32: exact.
/// - QuantizeLinear of a runtime tensor, read back by a DequantizeLinear of the same scale and
///   zero point (possibly through a Reshape or Transpose that only relabels it), is one
///   `fakeQuantize` node (`ONNXImporter.Quantization.fakeQuantize`), so outputs match
///   onnxruntime's; with `.float` both are dropped and the network runs unquantised.
extension ONNXGraphBuilder {
    /// The scale and zero point of a QuantizeLinear or DequantizeLinear node, per tensor.
    func quantization(_ node: Onnx_NodeProto) throws -> NetworkGraph.FakeQuantize {
        let scale = try required(node, 1, "scale")
        guard scale.count == 1, let s = scale.floats.first, s > 0, s.isFinite else {
            throw Unsupported(detail: "with a scale of \(scale.count) values (only one scale per activation tensor)")
        }
        guard let zero = try constant(node, 2, "zero point") else { return .uint8(scale: s, zeroPoint: 0) }
        guard zero.count == 1, let z = zero.ints?.first else {
            throw Unsupported(detail: "with a zero point of \(zero.count) values")
        }
        switch zero.elementType {
        case 3: return .int8(scale: s, zeroPoint: z)
        case 2: return .uint8(scale: s, zeroPoint: z)
        default: throw Unsupported(detail: "to element type \(zero.elementType) (only int8 and uint8)")
        }
    }

    /// DequantizeLinear with every input constant: the float tensor.
    func foldedDequantize(_ node: Onnx_NodeProto, _ a: Attributes, _ inputs: [ONNXTensor]) throws -> ONNXTensor {
        func bad(_ why: String) -> ONNXImportError { ONNXImportError("\(source): DequantizeLinear '\(node.name)': \(why)") }
        let x = inputs[0], scale = inputs[1]
        guard let q = x.ints else { throw bad("dequantizes a non-integer tensor") }
        let zero = inputs.count > 2 ? inputs[2] : ONNXTensor(dims: [], floats: [0], ints: [0])
        guard let z = zero.ints, z.count == scale.count else { throw bad("\(scale.count) scales and \(zero.count) zero points") }
        if scale.count == 1 {
            let s = scale.floats[0], zp = z[0]
            return ONNXTensor(dims: x.dims, floats: q.map { Float($0 - zp) * s })
        }
        let rank = x.dims.count
        var axis = a.int("axis", 1)
        if axis < 0 { axis += rank }
        guard axis >= 0, axis < rank, x.dims[axis] == scale.count else {
            throw bad("\(scale.count) scales along axis \(a.int("axis", 1)) of a \(x.dims) tensor")
        }
        let inner = x.dims[(axis + 1)...].reduce(1, *), channels = x.dims[axis]
        var floats = [Float](repeating: 0, count: q.count)
        for i in q.indices {
            let c = (i / inner) % channels
            floats[i] = Float(q[i] - z[c]) * scale.floats[c]
        }
        return ONNXTensor(dims: x.dims, floats: floats)
    }

    /// QuantizeLinear of a runtime tensor: a fake-quantise node (or, unquantised, the tensor).
    mutating func quantize(_ node: Onnx_NodeProto) throws {
        let x = try input(node, 0)
        let q = try quantization(node)
        if let axis = Attributes(node).byName["axis"], axis.i != 1, (try required(node, 1, "scale")).count > 1 {
            throw Unsupported(detail: "per axis")
        }
        switch quantizationMode {
        case .float:
            values[node.output[0]] = x
        case .fakeQuantize:
            let y = emit(node, .fakeQuantize(q), inputs: [x], isVector: x.isVector, pointwise: x.pointwise, sequence: x.sequence)
            values[node.output[0]]?.nhwc = x.nhwc
            quantizedBy[y.tensor] = q
        }
    }

    /// DequantizeLinear of a runtime tensor: that tensor, which a QuantizeLinear of the same
    /// scale and zero point made.
    mutating func dequantize(_ node: Onnx_NodeProto) throws {
        let x = try input(node, 0)
        let q = try quantization(node)
        if quantizationMode == .fakeQuantize {
            guard let made = quantizedBy[x.tensor] else {
                throw Unsupported(detail: "of a tensor no QuantizeLinear made (only QuantizeLinear -> DequantizeLinear pairs map)")
            }
            guard made.scale == q.scale, made.zeroPoint == q.zeroPoint, made.low == q.low else {
                throw Unsupported(detail: "with scale \(q.scale) and zero point \(q.zeroPoint) of a tensor quantised with \(made.scale) and \(made.zeroPoint)")
            }
        }
        values[node.output[0]] = x
    }
}

extension NetworkGraph {
    /// The graph with its fake quantisations dropped (each node's readers read its input): the
    /// network in float32 on the dequantised weights, as `ONNXImporter.Quantization.float`
    /// imports it.
    public func withoutFakeQuantization() -> NetworkGraph {
        var source = Array(0..<tensorCount)
        var kept: [Node] = []
        for var node in nodes {
            node.inputs = node.inputs.map { source[$0] }
            if case .fakeQuantize = node.operation, let x = node.inputs.first {
                source[node.output] = x
            } else {
                kept.append(node)
            }
        }
        var graph = self
        graph.nodes = kept
        graph.output = source[output]
        return graph
    }
}
