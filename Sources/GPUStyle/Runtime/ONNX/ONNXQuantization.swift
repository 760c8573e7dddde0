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

/// Conditional instance normalisation written out in int8 QDQ ops, as tf2onnx writes Magenta's
/// arbitrary-style transform, recognised into one `quantizedInstanceNorm` node
/// (`NetworkGraph.QuantizedInstanceNorm` has the formulas). Starting at the GlobalAveragePool of
/// x, the chain is followed name by name through the graph's readers; any deviation leaves the
/// nodes to be mapped one by one (and named as unsupported).
extension ONNXGraphBuilder {
    private func onnxNode(_ index: Int) -> Onnx_NodeProto { model.graph.node[index] }

    /// The one reader of `name` with op `op` (and, when given, reading `other` too).
    private func reader(of name: String, _ op: String, with other: ((String) -> Bool)? = nil) -> Int? {
        let found = Set(consumers[name] ?? []).filter { index in
            let node = onnxNode(index)
            guard node.opType == op else { return false }
            guard let other else { return true }
            return node.input.contains { $0 != name && other($0) } || (node.input.count == 2 && node.input.allSatisfy { $0 == name } && other(name))
        }
        return found.count == 1 ? found.first : nil
    }

    /// The QuantizeLinear reading `name`, and the DequantizeLinear outputs that read it back
    /// (directly or through Reshapes), with every node on the way.
    private func quantized(_ name: String, into members: inout [Int]) throws -> (NetworkGraph.FakeQuantize, [String])? {
        guard let q = reader(of: name, "QuantizeLinear") else { return nil }
        let params = try quantization(onnxNode(q))
        members.append(q)
        var outputs: [String] = [], frontier = [onnxNode(q).output[0]]
        while let next = frontier.popLast() {
            for index in consumers[next] ?? [] {
                let node = onnxNode(index)
                switch node.opType {
                case "Reshape":
                    members.append(index)
                    frontier.append(node.output[0])
                case "DequantizeLinear":
                    guard try quantization(node) == params else { return nil }
                    members.append(index)
                    outputs.append(node.output[0])
                default:
                    return nil
                }
            }
        }
        return outputs.isEmpty ? nil : (params, outputs)
    }

    /// At the GlobalAveragePool `index`: the whole pattern as one node, or false.
    mutating func quantizedInstanceNorm(at index: Int) throws -> Bool {
        guard quantizationMode == .fakeQuantize else { return false }
        let gap = onnxNode(index)
        let x = gap.input[0]
        guard let xValue = values[x], !xValue.isVector else { return false }
        var members = [index], q: [NetworkGraph.FakeQuantize] = []
        func step(_ name: String) throws -> [String]? {
            guard let (params, outputs) = try quantized(name, into: &members) else { return nil }
            q.append(params)
            return outputs
        }
        func node(_ found: Int?) -> Onnx_NodeProto? {
            guard let found else { return nil }
            members.append(found)
            return onnxNode(found)
        }
        guard let means = try step(gap.output[0]) else { return false }
        guard let sub = node(reader(of: x, "Sub", with: { means.contains($0) })), sub.input[0] == x else { return false }
        guard let square = node(reader(of: sub.output[0], "Mul")), square.input.allSatisfy({ $0 == sub.output[0] }) else { return false }
        guard let squares = try step(square.output[0]), squares.count == 1 else { return false }
        guard let variance = node(reader(of: squares[0], "GlobalAveragePool")) else { return false }
        guard let variances = try step(variance.output[0]), variances.count == 1 else { return false }
        guard let addEpsilon = node(reader(of: variances[0], "Add")) else { return false }
        guard let epsilonName = addEpsilon.input.first(where: { $0 != variances[0] }) else { return false }
        guard let epsilon = constants[epsilonName], epsilon.count == 1 else { return false }
        guard let shifted = try step(addEpsilon.output[0]), shifted.count == 1 else { return false }
        guard let sqrt = node(reader(of: shifted[0], "Sqrt")) else { return false }
        guard let reciprocal = node(reader(of: sqrt.output[0], "Reciprocal")) else { return false }
        guard let rsqrts = try step(reciprocal.output[0]), rsqrts.count == 1 else { return false }
        guard let scaleNode = node(reader(of: rsqrts[0], "Mul")) else { return false }
        guard let gammaName = scaleNode.input.first(where: { $0 != rsqrts[0] }), let gamma = values[gammaName] else { return false }
        guard let scales = try step(scaleNode.output[0]) else { return false }
        guard let meanScale = node(reader(of: means.first { m in reader(of: m, "Mul", with: { scales.contains($0) }) != nil } ?? "", "Mul", with: { scales.contains($0) })) else { return false }
        guard let meanScales = try step(meanScale.output[0]), meanScales.count == 1 else { return false }
        guard let shiftNode = node(reader(of: meanScales[0], "Sub")), shiftNode.input[1] == meanScales[0] else { return false }
        guard let beta = values[shiftNode.input[0]] else { return false }
        guard let shifts = try step(shiftNode.output[0]), shifts.count == 1 else { return false }
        guard let product = node(reader(of: x, "Mul", with: { scales.contains($0) })) else { return false }
        guard let products = try step(product.output[0]), products.count == 1 else { return false }
        guard let sum = node(reader(of: products[0], "Add", with: { $0 == shifts[0] })) else { return false }
        var last = sum
        let relu = reader(of: sum.output[0], "Relu")
        if let relu { last = node(relu)! }
        guard let outputs = try step(last.output[0]), q.count == 10 else { return false }
        // Every node read only inside the pattern (x, γ and β come from outside).
        let memberOutputs = Set(members.flatMap { onnxNode($0).output })
        for member in members where member != index {
            for name in onnxNode(member).input where !memberOutputs.contains(name) {
                guard name == x || name == gammaName || name == shiftNode.input[0] || constants[name] != nil else { return false }
            }
        }
        let n = NetworkGraph.QuantizedInstanceNorm(quantizers: q, epsilon: epsilon.floats[0], relu: relu != nil)
        let y = emit(gap, .quantizedInstanceNorm(n), inputs: [xValue, gamma, beta])
        quantizedBy[y.tensor] = q[9]
        for name in outputs { values[name] = y }
        patternMembers.formUnion(members)
        return true
    }
}
