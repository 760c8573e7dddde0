import Foundation
import SwiftProtobuf

/// Reads an ONNX model (one image in, NCHW float32, batch 1) into a `NetworkGraph`.
///
/// Batch normalisation is folded into the (transposed) convolution before it (or becomes a depthwise 1x1
/// convolution); a per-channel constant Add/Mul likewise; Flatten/Reshape/Squeeze/Unsqueeze,
/// Identity and Dropout only relabel tensors (an FC reads its input's C*H*W values in C order,
/// which is the flattened layout). Every op that cannot be mapped is named in one error.
public enum ONNXImporter {
    /// The graph, and the model's input shape when its C, H and W are fixed numbers.
    /// How QuantizeLinear -> DequantizeLinear pairs on activations run (`ONNXQuantization.swift`).
    public enum Quantization: Sendable {
        /// As onnxruntime runs them: round to the int8/uint8 grid and back (`fake_quant`).
        case fakeQuantize
        /// Not at all: the network in float32 on the dequantised weights.
        case float
    }

    public static func graph(from data: Data, source: String,
                             quantization: Quantization = .fakeQuantize) throws -> (graph: NetworkGraph, inputShape: NetworkGraph.Shape?) {
        let model: Onnx_ModelProto
        do {
            model = try Onnx_ModelProto(serializedBytes: data)
        } catch {
            throw ONNXImportError("\(source): not a readable ONNX model (\(error))")
        }
        var builder = try ONNXGraphBuilder(model: model, source: source)
        builder.quantizationMode = quantization
        return try builder.build()
    }
}

/// One ONNX model's mapping state: ONNX value names to graph tensors, the graph so far, and
/// what could not be mapped.
struct ONNXGraphBuilder {
    /// A runtime tensor under an ONNX name. `isVector`: ONNX sees it as [1, N] (the graph tensor
    /// may still be a [C][H][W] map that was flattened). `pointwise`: known to be [C][1][1].
    struct Value {
        var tensor: Int
        var isVector: Bool
        var pointwise: Bool
        /// ONNX sees a map of height 1 with that axis squeezed away (a sequence, as a
        /// recogniser's head reads its features): [N, C, W], or [N, W, C] once transposed. The
        /// graph tensor is still the [C][1][W] map; only how later ops index it changes.
        var sequence: SequenceLayout? = nil
        /// ONNX sees the map channels last, [N, H, W, C] (a TensorFlow model's input before its
        /// Transpose to NCHW); the graph tensor is [C][H][W] all the same.
        var nhwc = false
    }

    enum SequenceLayout {
        /// [N, C, W]: channels on axis 1 as in the map.
        case channelsFirst
        /// [N, W, C]: channels last (after Transpose perm [0, 2, 1]); a MatMul by a constant
        /// [C, K] is a 1x1 convolution, a Softmax over axis 2 a softmax over channels.
        case channelsLast
    }

    /// A node we cannot map: the reason is completed with the op and node name.
    struct Unsupported: Error { var detail: String }

    /// Bounds what a corrupt file can make a tensor (or a kernel, stride or padding) claim,
    /// so no shape arithmetic overflows.
    static let maximumElements = 1 << 30
    static let maximumExtent = 1 << 16

    let model: Onnx_ModelProto
    let source: String
    let opset: Int
    var constants: [String: ONNXTensor] = [:]
    var values: [String: Value] = [:]
    var poisoned = Set<String>()
    var unsupported: [String] = []
    var nodes: [NetworkGraph.Node] = []
    var weights: [[Float]] = []
    var weightNames: [String] = []
    var tensorCount = 1
    var producer: [Int: Int] = [:]
    /// The ONNX name each node output was made under (aliases such as Identity add names).
    var madeAs: [Int: String] = [:]
    /// ONNX readers of each value name (graph outputs count as readers).
    var readers: [String: Int] = [:]
    /// Reads of each value name as a layer's weights (`ONNXGraphBuilder.weightOps`' inputs after
    /// the first): a name all of whose readers are such may be folded larger
    /// (`maximumFoldedWeightElements`).
    var weightReads: [String: Int] = [:]
    /// Tensors made by HardSigmoid: their source tensor and parameters (x * hardsigmoid(x) is HardSwish).
    var hardSigmoids: [Int: (source: Int, alpha: Float, beta: Float)] = [:]
    var inputShape: NetworkGraph.Shape?
    /// The input's channel count when it is fixed (its height or width may not be).
    var inputChannels: Int?
    /// The nodes reading each value name, by index in the ONNX graph.
    var consumers: [String: [Int]] = [:]
    /// GELU written out (`ONNXGraphBuilder.geluChain`): the chain's last node index -> the
    /// chain's input name; the other nodes of each chain are skipped.
    var geluEnds: [Int: String] = [:]
    var geluMembers = Set<Int>()
    var quantizationMode = ONNXImporter.Quantization.fakeQuantize
    /// A second input: a vector of fixed length (`NetworkGraph.auxiliaryInput`).
    var auxiliaryInput: NetworkGraph.AuxiliaryInput?
    /// Nodes a recognised pattern stands for (`ONNXQuantization.swift`), skipped when met.
    var patternMembers = Set<Int>()
    /// The fake quantisation that made each tensor (its DequantizeLinear must match).
    var quantizedBy: [Int: NetworkGraph.FakeQuantize] = [:]
    private var shapeCache: (nodeCount: Int, shapes: [NetworkGraph.Shape?])?

    init(model: Onnx_ModelProto, source: String) throws {
        self.model = model
        self.source = source
        let defaultDomain = model.opsetImport.first { $0.domain.isEmpty || $0.domain == "ai.onnx" }
        opset = Int(clamping: defaultDomain?.version ?? 1)
        guard model.hasGraph, !model.graph.node.isEmpty else {
            throw ONNXImportError("\(source): the model has no graph nodes (not an ONNX model?)")
        }
    }

    func fail(_ why: String) -> ONNXImportError { ONNXImportError("\(source): \(why)") }

    // MARK: - Whole graph

    mutating func build() throws -> (graph: NetworkGraph, inputShape: NetworkGraph.Shape?) {
        let graph = model.graph
        for initializer in graph.initializer {
            constants[initializer.name] = try ONNXTensor(initializer, what: "\(source): initializer '\(initializer.name)'")
        }
        let inputs = graph.input.filter { constants[$0.name] == nil }
        guard inputs.count == 1 || (inputs.count == 2 && Self.vectorLength(inputs[1]) != nil) else {
            throw fail("the model has \(inputs.count) inputs (\(inputs.map { "'\($0.name)'" }.joined(separator: ", "))); one image input is supported (and a second [1, N, 1, 1] or [1, 1, 1, N] vector)")
        }
        guard graph.output.count == 1 else {
            throw fail("the model has \(graph.output.count) outputs; one is supported")
        }
        for (index, node) in graph.node.enumerated() {
            for (i, name) in node.input.enumerated() where !name.isEmpty {
                readers[name, default: 0] += 1
                consumers[name, default: []].append(index)
                if i > 0 && Self.weightOps.contains(node.opType) { weightReads[name, default: 0] += 1 }
            }
        }
        try readInput(inputs[0])
        if inputs.count == 2, let n = Self.vectorLength(inputs[1]) {
            let tensor = tensorCount
            tensorCount += 1
            auxiliaryInput = .init(tensor: tensor, shape: .init(channels: n, height: 1, width: 1))
            values[inputs[1].name] = Value(tensor: tensor, isVector: false, pointwise: true)
        }
        readers[graph.output[0].name, default: 0] += 1

        for (index, node) in graph.node.enumerated() {
            if node.input.contains(where: { poisoned.contains($0) }) {
                node.output.forEach { poisoned.insert($0) }
                continue
            }
            if geluMembers.contains(index) || patternMembers.contains(index) { continue }
            do {
                if let x = geluEnds[index] {
                    let value = try self.input(named: x, of: node)
                    emit(node, .activation(.init(.gelu)), inputs: [value], isVector: value.isVector, pointwise: value.pointwise,
                         sequence: value.sequence)
                    continue
                }
                if node.opType == "GlobalAveragePool", try quantizedInstanceNorm(at: index) { continue }
                if node.opType == "Div", let chain = geluChain(startingAt: index) {
                    geluEnds[chain.end] = chain.input
                    geluMembers.formUnion(chain.members)
                    continue
                }
                guard node.domain.isEmpty || node.domain == "ai.onnx" else {
                    throw Unsupported(detail: "(domain \(node.domain))")
                }
                guard !node.output.isEmpty else { throw ONNXImportError("\(source): node \(describe(node)) has no output") }
                if let value = try folded(node, Attributes(node)) {
                    constants[node.output[0]] = value
                } else {
                    try map(node)
                }
            } catch let error as Unsupported {
                let detail = error.detail.isEmpty ? "" : " \(error.detail)"
                unsupported.append("\(node.opType)\(detail) (\(describe(node)))")
                node.output.forEach { poisoned.insert($0) }
            }
        }
        if !unsupported.isEmpty {
            throw fail("unsupported ONNX ops: \(unsupported.joined(separator: ", "))")
        }
        let outputName = graph.output[0].name
        guard let output = values[outputName] else {
            throw fail(constants[outputName] != nil ? "the output '\(outputName)' is a constant"
                                                    : "no node makes the output '\(outputName)'")
        }
        var result = NetworkGraph(input: 0, output: output.tensor, tensorCount: tensorCount,
                                  nodes: liveNodes(output: output.tensor),
                                  constants: ModelConstants(values: weights, names: weightNames))
        result.auxiliaryInput = auxiliaryInput
        if let inputShape {
            do { _ = try result.shapes(input: inputShape) } catch { throw fail("\(error)") }
        }
        return (result, inputShape)
    }

    private mutating func readInput(_ input: Onnx_ValueInfoProto) throws {
        guard case .tensorType(let type)? = input.type.value else { throw fail("the input '\(input.name)' is not a tensor") }
        guard type.elemType == 1 else { throw fail("the input '\(input.name)' has element type \(type.elemType); float32 is supported") }
        var dims = type.shape.dim.map { dim -> Int? in
            if case .dimValue(let v)? = dim.value, v > 0 { return Int(clamping: v) }
            return nil
        }
        guard type.hasShape, dims.count == 4 else {
            throw fail("the input '\(input.name)' has \(type.hasShape ? "rank \(dims.count)" : "no shape"); NCHW (rank 4) is supported")
        }
        // A TensorFlow model's NHWC input, transposed to NCHW before its first convolution:
        // the graph's input is [C][H][W] as always, and that Transpose relabels it.
        let nhwc = isChannelsLastInput(input.name)
        if nhwc { dims = [dims[0], dims[3], dims[1], dims[2]] }
        if let batch = dims[0], batch != 1 { throw fail("the input '\(input.name)' has batch \(batch); batch 1 is supported") }
        if let c = dims[1], c <= Self.maximumExtent { inputChannels = c }
        if let c = dims[1], let h = dims[2], let w = dims[3] {
            guard max(c, h, w) <= Self.maximumExtent, c * h * w <= Self.maximumElements else {
                throw fail("the input '\(input.name)' of \(c)x\(h)x\(w) is too large")
            }
            inputShape = NetworkGraph.Shape(channels: c, height: h, width: w)
        }
        values[input.name] = Value(tensor: 0, isVector: false, pointwise: false, nhwc: nhwc)
    }

    /// N for a float input of fixed shape [1, N, 1, 1] or [1, 1, 1, N].
    static func vectorLength(_ input: Onnx_ValueInfoProto) -> Int? {
        guard case .tensorType(let type)? = input.type.value, type.elemType == 1, type.hasShape else { return nil }
        let dims = type.shape.dim.map { dim -> Int in
            if case .dimValue(let v)? = dim.value, v > 0, v <= Int64(maximumExtent) { return Int(v) }
            return 0
        }
        guard dims.count == 4, dims[0] == 1 else { return nil }
        if dims[2] == 1, dims[3] == 1, dims[1] > 0 { return dims[1] }
        if dims[1] == 1, dims[2] == 1, dims[3] > 0 { return dims[3] }
        return nil
    }

    /// Whether the input reaches a Transpose to NCHW (perm [0, 3, 1, 2]) through ops that keep
    /// its layout (quantisation, padding).
    private func isChannelsLastInput(_ name: String) -> Bool {
        var frontier = [name], seen = Set<String>()
        while let next = frontier.popLast() {
            guard seen.insert(next).inserted else { continue }
            for index in consumers[next] ?? [] {
                let node = model.graph.node[index]
                switch node.opType {
                case "Transpose":
                    if Attributes(node).ints("perm") == [0, 3, 1, 2] { return true }
                case "QuantizeLinear", "DequantizeLinear", "Pad", "Identity":
                    if let out = node.output.first { frontier.append(out) }
                default:
                    break
                }
            }
        }
        return false
    }

    /// The nodes the output depends on (a HardSigmoid folded into HardSwish is left unread).
    private func liveNodes(output: Int) -> [NetworkGraph.Node] {
        var live: Set<Int> = [output]
        var kept: [NetworkGraph.Node] = []
        for node in nodes.reversed() where live.contains(node.output) {
            kept.append(node)
            node.inputs.forEach { live.insert($0) }
        }
        return kept.reversed()
    }

    func describe(_ node: Onnx_NodeProto) -> String {
        node.name.isEmpty ? "node making '\(node.output.first ?? "?")'" : "node '\(node.name)'"
    }

    // MARK: - Building blocks

    /// The shape of a tensor so far, when the input shape is fixed.
    mutating func shape(of tensor: Int) -> NetworkGraph.Shape? {
        guard let inputShape else { return nil }
        if shapeCache?.nodeCount != nodes.count {
            var partial = NetworkGraph(input: 0, output: 0, tensorCount: tensorCount, nodes: nodes,
                                       constants: ModelConstants(values: weights, names: weightNames))
            partial.auxiliaryInput = auxiliaryInput
            shapeCache = (nodes.count, (try? partial.shapes(input: inputShape)) ?? [])
        }
        guard let shapes = shapeCache?.shapes, tensor < shapes.count else { return nil }
        return shapes[tensor]
    }

    mutating func isPointwise(_ value: Value) -> Bool {
        if let s = shape(of: value.tensor) { return s.height == 1 && s.width == 1 }
        return value.pointwise
    }

    mutating func channels(of value: Value) -> Int? {
        if let s = shape(of: value.tensor) { return s.channels }
        // Without a fixed input shape: from the node that makes it, through ops that keep channels.
        var tensor = value.tensor
        if tensor == 0, let inputChannels { return inputChannels }
        while let index = producer[tensor] {
            let node = nodes[index]
            switch node.operation {
            case .convolution(let c): return c.outputChannels
            case .fullyConnected(_, _, let outputs): return outputs
            case .transposedConvolution(let t): return t.outputChannels
            case .activation, .add, .channelMultiply, .globalAveragePool, .maxPool, .softmax, .resize, .pad, .instanceNorm,
                 .fakeQuantize, .quantizedInstanceNorm:
                guard let first = node.inputs.first else { return nil }
                tensor = first
                if tensor == 0, let inputChannels { return inputChannels }
            case .concat:
                var total = 0
                for part in node.inputs {
                    guard let c = channels(of: Value(tensor: part, isVector: false, pointwise: false)) else { return nil }
                    total += c
                }
                return total
            }
        }
        return nil
    }

    mutating func addConstant(_ values: [Float], name: String) -> Int {
        weights.append(values)
        weightNames.append(name)
        return weights.count - 1
    }

    @discardableResult
    mutating func emit(_ node: Onnx_NodeProto, _ operation: NetworkGraph.Operation, inputs: [Value],
                       isVector: Bool = false, pointwise: Bool = false, sequence: SequenceLayout? = nil) -> Value {
        let tensor = tensorCount
        tensorCount += 1
        let name = node.name.isEmpty ? "\(node.opType) -> \(node.output[0])" : node.name
        producer[tensor] = nodes.count
        madeAs[tensor] = node.output[0]
        nodes.append(NetworkGraph.Node(name: name, operation: operation, inputs: inputs.map(\.tensor), output: tensor))
        let value = Value(tensor: tensor, isVector: isVector, pointwise: pointwise, sequence: sequence)
        values[node.output[0]] = value
        return value
    }

    /// Runtime input `index` of `node`.
    func input(_ node: Onnx_NodeProto, _ index: Int) throws -> Value {
        guard index < node.input.count, !node.input[index].isEmpty else {
            throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)) lacks input \(index)")
        }
        let name = node.input[index]
        if let value = values[name] { return value }
        if constants[name] != nil { throw Unsupported(detail: "with a constant input '\(name)'") }
        throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)) reads '\(name)', which nothing makes before it")
    }

    /// The runtime value `name` as `node` reads it.
    func input(named name: String, of node: Onnx_NodeProto) throws -> Value {
        if let value = values[name] { return value }
        throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)) reads '\(name)', which nothing makes before it")
    }

    /// Constant input `index` of `node`, or nil when the input is absent (optional inputs).
    func constant(_ node: Onnx_NodeProto, _ index: Int, _ what: String) throws -> ONNXTensor? {
        guard index < node.input.count, !node.input[index].isEmpty else { return nil }
        let name = node.input[index]
        if let tensor = constants[name] { return tensor }
        if values[name] != nil { throw Unsupported(detail: "with a computed \(what) '\(name)' (a constant is required)") }
        throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)) reads '\(name)', which nothing makes before it")
    }

    func required(_ node: Onnx_NodeProto, _ index: Int, _ what: String) throws -> ONNXTensor {
        guard let tensor = try constant(node, index, what) else {
            throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)) lacks its \(what)")
        }
        return tensor
    }

    /// The integers of a constant input (shapes, pads, axes).
    func integers(_ node: Onnx_NodeProto, _ index: Int, _ what: String) throws -> [Int]? {
        guard let tensor = try constant(node, index, what) else { return nil }
        guard let ints = tensor.ints else {
            throw ONNXImportError("\(source): \(describe(node)) (\(node.opType)): the \(what) is not an integer tensor")
        }
        return ints
    }

    /// A per-channel constant for a tensor of `channels` channels: [C], [C,1,1] or [1,C,1,1] (or
    /// [1,C] for a vector), or one value broadcast.
    mutating func perChannel(_ tensor: ONNXTensor, for value: Value, what: String) throws -> [Float] {
        let nonUnit = tensor.dims.enumerated().filter { $0.element != 1 }
        guard tensor.count >= 1 else { throw ONNXImportError("\(source): an empty \(what)") }
        if tensor.count == 1 {
            guard let c = channels(of: value) else {
                throw Unsupported(detail: "with a scalar \(what) on a tensor of unknown channel count")
            }
            return [Float](repeating: tensor.floats[0], count: c)
        }
        // The channel axis of a rank-r constant broadcast against [1, C, H, W] is r - 3; against
        // [1, N] or a channels-last sequence [1, W, C] it is r - 1; against [1, C, W], r - 2.
        let channelAxis: Int
        switch value.sequence {
        case .channelsLast?: channelAxis = tensor.dims.count - 1
        case .channelsFirst?: channelAxis = tensor.dims.count - 2
        case nil: channelAxis = value.isVector ? tensor.dims.count - 1 : tensor.dims.count - 3
        }
        guard nonUnit.count == 1, nonUnit[0].offset == channelAxis else {
            throw Unsupported(detail: "with a \(what) of shape \(tensor.dims) (only per-channel constants map)")
        }
        if let c = channels(of: value), c != tensor.count {
            throw Unsupported(detail: "with a \(what) of \(tensor.count) values on a tensor of \(c) channels")
        }
        return tensor.floats
    }

    /// `y[c] = x[c] * scale[c] + shift[c]`: folded into the convolution, transposed convolution or FC that makes `x`
    /// when nothing else reads it (read under its own name only: an alias may have other readers),
    /// else a depthwise 1x1 convolution.
    mutating func affine(_ node: Onnx_NodeProto, _ x: Value, inputName: String, scale: [Float], shift: [Float]) {
        let channels = scale.count
        if readers[inputName] == 1, madeAs[x.tensor] == inputName, let index = producer[x.tensor], nodes[index].output == x.tensor {
            let folded: NetworkGraph.Operation?
            switch nodes[index].operation {
            case .convolution(var c) where c.activation == .identity && c.outputChannels == channels:
                c.bias = fold(weights: c.weights, bias: c.bias, channels: channels, scale: scale, shift: shift, by: node)
                folded = .convolution(c)
            case .transposedConvolution(var t) where t.activation == .identity && t.outputChannels == channels:
                t.bias = foldTransposed(weights: t.weights, bias: t.bias, scale: scale, shift: shift, by: node)
                folded = .transposedConvolution(t)
            case .fullyConnected(let w, let b, let outputs) where outputs == channels:
                let bias = fold(weights: w, bias: b, channels: channels, scale: scale, shift: shift, by: node)
                folded = .fullyConnected(weights: w, bias: bias, outputs: outputs)
            default:
                folded = nil
            }
            if let folded {
                // The producer now makes y; x's tensor goes by y's name.
                nodes[index].operation = folded
                values[node.output[0]] = x
                madeAs[x.tensor] = node.output[0]
                return
            }
        }
        let w = addConstant(scale, name: "\(node.name).scale")
        let b = addConstant(shift, name: "\(node.name).shift")
        emit(node, .convolution(.init(weights: w, bias: b, outputChannels: channels, kernelHeight: 1, kernelWidth: 1,
                                      groups: channels)),
             inputs: [x], isVector: x.isVector, pointwise: x.pointwise, sequence: x.sequence)
    }

    /// The same for a transposed convolution, whose weights are [in][out][2][2]: output o's taps
    /// are 4 floats in every input channel's block.
    private mutating func foldTransposed(weights index: Int, bias: Int?, scale: [Float], shift: [Float],
                                         by node: Onnx_NodeProto) -> Int {
        let channels = scale.count
        for i in 0..<weights[index].count / 4 { for tap in 4 * i..<4 * i + 4 { weights[index][tap] *= scale[i % channels] } }
        return foldedBias(bias, channels: channels, scale: scale, shift: shift, by: node, weights: index)
    }

    /// Scales each output's block of weights in place; returns the (new) bias constant.
    private mutating func fold(weights index: Int, bias: Int?, channels: Int, scale: [Float], shift: [Float],
                               by node: Onnx_NodeProto) -> Int {
        let block = weights[index].count / channels
        for o in 0..<channels {
            for i in o * block..<(o + 1) * block { weights[index][i] *= scale[o] }
        }
        return foldedBias(bias, channels: channels, scale: scale, shift: shift, by: node, weights: index)
    }

    /// bias * scale + shift (a missing bias is zeros) into `bias` or a new constant, its index;
    /// `weights` named as folded.
    private mutating func foldedBias(_ bias: Int?, channels: Int, scale: [Float], shift: [Float], by node: Onnx_NodeProto,
                                     weights index: Int) -> Int {
        weightNames[index] += " (\(node.opType) '\(node.name)' folded)"
        let oldBias = bias.map { weights[$0] } ?? [Float](repeating: 0, count: channels)
        let newBias = (0..<channels).map { oldBias[$0] * scale[$0] + shift[$0] }
        if let bias {
            weights[bias] = newBias
            return bias
        }
        return addConstant(newBias, name: "\(node.name).bias (folded)")
    }
}
