import Foundation

/// ONNX ops to `NetworkGraph.Operation`s (operator semantics from the ONNX operator docs):
///
/// - Conv -> convolution (groups, strides, pads, auto_pad; dilation 1); ConvTranspose (kernel 2,
///   stride 2) -> transposedConvolution
/// - BatchNormalization, and Add/Mul of a per-channel constant -> folded into the Conv/ConvTranspose/FC before
///   it when nothing else reads that output, else a depthwise 1x1 convolution
/// - Relu, Sigmoid, LeakyRelu, HardSigmoid, HardSwish, PRelu -> activation; Clip [0, 6] -> relu6,
///   [0, inf) -> relu; Mul(x, HardSigmoid(x; 1/6, 1/2)) -> hardSwish
/// - Add/Sum of two tensors -> add; Mul of a map by a [C,1,1] tensor -> channelMultiply
/// - GlobalAveragePool, ReduceMean over [2, 3], AveragePool covering the map -> globalAveragePool
/// - MaxPool -> maxPool; Gemm, MatMul (+ Add) -> fullyConnected; Softmax over channels -> softmax
/// - Concat on channels -> concat; Resize/Upsample by one integer factor -> resize (nearest:
///   asymmetric+floor or half-pixel; linear: half-pixel); Pad (zeros or reflect, H/W) -> pad
/// - Identity, Dropout, Flatten, Reshape/Squeeze/Unsqueeze to or from a vector -> no node
extension ONNXGraphBuilder {
    struct Attributes {
        var byName: [String: Onnx_AttributeProto] = [:]
        init(_ node: Onnx_NodeProto) { for a in node.attribute { byName[a.name] = a } }
        func int(_ name: String, _ fallback: Int) -> Int { byName[name].map { Int(clamping: $0.i) } ?? fallback }
        func float(_ name: String, _ fallback: Float) -> Float { byName[name]?.f ?? fallback }
        func ints(_ name: String) -> [Int]? { byName[name].map { $0.ints.map { Int(clamping: $0) } } }
        func floats(_ name: String) -> [Float]? { byName[name]?.floats }
        func string(_ name: String, _ fallback: String) -> String {
            byName[name].map { String(decoding: $0.s, as: UTF8.self) } ?? fallback
        }
        func has(_ name: String) -> Bool { byName[name] != nil }
    }

    /// Ops that read a sequence (`Value.sequence`) by its own axes; any other op on one is refused.
    static let sequenceOps: Set<String> = ["Identity", "Dropout", "BatchNormalization", "Relu", "Sigmoid", "LeakyRelu",
                                           "HardSigmoid", "HardSwish", "PRelu", "Clip", "Add", "Mul", "Div", "Sum",
                                           "Squeeze", "Unsqueeze", "Softmax", "MatMul", "Transpose"]

    mutating func map(_ node: Onnx_NodeProto) throws {
        let a = Attributes(node)
        let out = node.output[0]
        if !Self.sequenceOps.contains(node.opType), node.input.contains(where: { values[$0]?.sequence != nil }) {
            throw Unsupported(detail: "on a sequence (a map whose height was squeezed)")
        }
        if !["QuantizeLinear", "DequantizeLinear", "Pad", "Transpose", "Identity"].contains(node.opType),
           !(node.opType == "Reshape" && node.input.first.flatMap({ values[$0] }).map({ isPointwise($0) }) == true),
           node.input.contains(where: { values[$0]?.nhwc == true }) {
            throw Unsupported(detail: "on a channels-last [N, H, W, C] tensor (only quantisation, padding and the Transpose to NCHW)")
        }
        switch node.opType {
        case "Constant":
            constants[out] = try constantValue(node, a)
        case "Identity":
            values[out] = try input(node, 0)
        case "Dropout":
            if node.output.count > 1, !node.output[1].isEmpty, readers[node.output[1]] != nil {
                throw Unsupported(detail: "with its mask read")
            }
            values[out] = try input(node, 0)
        case "Conv":
            try convolution(node, a)
        case "ConvTranspose":
            try transposedConvolution(node, a)
        case "BatchNormalization":
            let x = try input(node, 0)
            if a.int("training_mode", 0) != 0 { throw Unsupported(detail: "in training mode") }
            // Its channel axis is 1: of a sequence [N, W, C] that is the positions.
            if x.sequence == .channelsLast { throw Unsupported(detail: "of a [N, W, C] sequence") }
            let gamma = try required(node, 1, "scale"), beta = try required(node, 2, "bias")
            let mean = try required(node, 3, "mean"), variance = try required(node, 4, "variance")
            let c = gamma.count
            guard c > 0, beta.count == c, mean.count == c, variance.count == c else {
                throw ONNXImportError("\(source): BatchNormalization '\(node.name)' has parameters of \(gamma.count), \(beta.count), \(mean.count) and \(variance.count) values")
            }
            let epsilon = a.float("epsilon", 1e-5)
            // scale = gamma / sqrt(var + eps); shift = beta - mean * scale (in double: var may be tiny).
            let scale = (0..<c).map { Float(Double(gamma.floats[$0]) / (Double(variance.floats[$0]) + Double(epsilon)).squareRoot()) }
            let shift = (0..<c).map { Float(Double(beta.floats[$0]) - Double(mean.floats[$0]) * Double(scale[$0])) }
            affine(node, x, inputName: node.input[0], scale: scale, shift: shift)
        case "Relu":
            try activation(node, .relu)
        case "Sigmoid":
            try activation(node, .init(.sigmoid))
        case "LeakyRelu":
            try activation(node, .init(.leakyRelu, alpha: a.float("alpha", 0.01)))
        case "HardSigmoid":
            let alpha = a.float("alpha", 0.2), beta = a.float("beta", 0.5)
            let x = try input(node, 0)
            let y = emit(node, .activation(.init(.hardSigmoid, alpha: alpha, beta: beta)), inputs: [x],
                         isVector: x.isVector, pointwise: x.pointwise, sequence: x.sequence)
            hardSigmoids[y.tensor] = (x.tensor, alpha, beta)
        case "HardSwish":
            try activation(node, .init(.hardSwish))
        case "PRelu":
            let x = try input(node, 0)
            let slopes = try perChannel(try required(node, 1, "slope"), for: x, what: "slope")
            let index = addConstant(slopes, name: "\(node.name).slope")
            emit(node, .activation(.init(.prelu, slopes: index)), inputs: [x], isVector: x.isVector, pointwise: x.pointwise,
                 sequence: x.sequence)
        case "Clip":
            try clip(node, a)
        case "QuantizeLinear":
            try quantize(node)
        case "DequantizeLinear":
            try dequantize(node)
        case "Add", "Mul":
            try binary(node)
        case "Div":
            try divide(node)
        case "Sum" where node.input.count == 2:
            // Sum of two tensors (opset < 8 models write residual adds so) is an Add.
            try binary(node)
        case "GlobalAveragePool":
            let x = try input(node, 0)
            emit(node, .globalAveragePool, inputs: [x], pointwise: true)
        case "ReduceMean":
            let x = try input(node, 0)
            let axes = try (opset >= 18 ? integers(node, 1, "axes") : a.ints("axes")) ?? [0, 1, 2, 3]
            guard !x.isVector, Set(axes.map { $0 < 0 ? $0 + 4 : $0 }) == [2, 3] else {
                throw Unsupported(detail: "over axes \(axes) (only the spatial axes [2, 3] map)")
            }
            emit(node, .globalAveragePool, inputs: [x], isVector: a.int("keepdims", 1) == 0, pointwise: true)
        case "MaxPool":
            try maxPool(node, a)
        case "AveragePool":
            try averagePool(node, a)
        case "Gemm":
            try gemm(node, a)
        case "MatMul":
            let x = try input(node, 0)
            let b = try required(node, 1, "matrix")
            if x.sequence == .channelsLast, b.dims.count == 2 {
                // [N, W, C] x [C, K]: the same K x C matrix at every position, a 1x1 convolution.
                let (k, n) = (b.dims[0], b.dims[1])
                if let c = channels(of: x), c != k { throw Unsupported(detail: "by a [\(k), \(n)] matrix on \(c) channels") }
                var w = [Float](repeating: 0, count: k * n)
                for i in 0..<k { for o in 0..<n { w[o * k + i] = b.floats[i * n + o] } }
                let index = addConstant(w, name: node.input[1])
                emit(node, .convolution(.init(weights: index, bias: nil, outputChannels: n, kernelHeight: 1, kernelWidth: 1)),
                     inputs: [x], pointwise: x.pointwise, sequence: .channelsLast)
                return
            }
            guard x.isVector || isPointwise(x), b.dims.count == 2 else {
                throw Unsupported(detail: "on a \(x.isVector ? "vector" : "feature map") by a \(b.dims.count)-D matrix (only vector x [K, N] maps)")
            }
            let (k, n) = (b.dims[0], b.dims[1])
            var w = [Float](repeating: 0, count: k * n)
            for i in 0..<k { for o in 0..<n { w[o * k + i] = b.floats[i * n + o] } }
            let index = addConstant(w, name: node.input[1])
            emit(node, .fullyConnected(weights: index, bias: nil, outputs: n), inputs: [x], isVector: true, pointwise: true)
        case "Flatten":
            let x = try input(node, 0)
            let axis = a.int("axis", 1)
            guard axis == 1 || (x.isVector && axis == -1) else { throw Unsupported(detail: "at axis \(axis)") }
            values[out] = Value(tensor: x.tensor, isVector: true, pointwise: x.pointwise)
        case "Reshape":
            try reshape(node)
        case "Squeeze":
            let x = try input(node, 0)
            let axes = try (opset >= 13 ? integers(node, 1, "axes") : a.ints("axes")) ?? [0, 2, 3]
            if !x.isVector, x.sequence == nil, axes == [2] || axes == [-2] {
                // [N, C, 1, W] -> [N, C, W]: a view of the same map (ONNX refuses to squeeze an axis
                // that is not 1, so the map's height is 1 here).
                if let s = shape(of: x.tensor), s.height != 1 { throw Unsupported(detail: "of axis 2 on a \(s) map") }
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise, sequence: .channelsFirst)
                return
            }
            guard Set(axes.map { $0 < 0 ? $0 + (x.isVector ? 2 : 4) : $0 }).isSubset(of: x.isVector ? [0] : [0, 2, 3]) else {
                throw Unsupported(detail: "of axes \(axes)")
            }
            values[out] = Value(tensor: x.tensor, isVector: true, pointwise: x.pointwise || !x.isVector)
        case "Unsqueeze":
            let x = try input(node, 0)
            let axes = try (opset >= 13 ? integers(node, 1, "axes") : a.ints("axes")) ?? []
            if x.sequence == .channelsFirst, axes == [2] || axes == [-2] {
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise)
                return
            }
            guard x.isVector, Set(axes) == [2, 3] || Set(axes) == [-1, -2], isPointwise(x) else {
                throw Unsupported(detail: "of axes \(axes) on a \(x.isVector ? "vector" : "feature map")")
            }
            values[out] = Value(tensor: x.tensor, isVector: false, pointwise: true)
        case "Softmax":
            let x = try input(node, 0)
            let axis = a.int("axis", opset >= 13 ? -1 : 1)
            if let sequence = x.sequence {
                // Over the last axis of [N, W, C] (before opset 13 axis 2 also flattens only C).
                guard sequence == .channelsLast, axis == 2 || axis == -1 else {
                    throw Unsupported(detail: "at axis \(axis) of a \(sequence == .channelsLast ? "[N, W, C]" : "[N, C, W]") sequence (only over channels)")
                }
                emit(node, .softmax, inputs: [x], pointwise: x.pointwise, sequence: sequence)
                return
            }
            if x.isVector {
                guard axis == 1 || axis == -1, isPointwise(x) else {
                    throw Unsupported(detail: "at axis \(axis) of a \(isPointwise(x) ? "vector" : "flattened feature map")")
                }
            } else {
                // Before opset 13 axis 1 means softmax over C*H*W together: the channel softmax
                // only on a [C, 1, 1] map.
                guard axis == 1 || axis == -3, opset >= 13 || isPointwise(x) else {
                    throw Unsupported(detail: "at axis \(axis) of a feature map (only over channels: at opset 13 or later, or of a [C,1,1] map)")
                }
            }
            emit(node, .softmax, inputs: [x], isVector: x.isVector, pointwise: x.pointwise)
        case "Concat":
            let parts = try node.input.indices.map { try input(node, $0) }
            let axis = a.int("axis", 1)
            let isVector = parts.first?.isVector ?? false
            guard parts.allSatisfy({ $0.isVector == isVector }),
                  axis == 1 || axis == (isVector ? -1 : -3),
                  !isVector || parts.allSatisfy({ isPointwise($0) }) else {
                throw Unsupported(detail: "at axis \(axis) (only channels)")
            }
            emit(node, .concat, inputs: parts, isVector: isVector, pointwise: parts.allSatisfy(\.pointwise))
        case "Transpose":
            let x = try input(node, 0)
            let perm = a.ints("perm") ?? []
            if x.nhwc, perm == [0, 3, 1, 2] {
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise)
                return
            }
            if !x.nhwc, !x.isVector, x.sequence == nil, perm == [0, 2, 3, 1] {
                // To NHWC, as a TensorFlow model's last op: the graph's output stays [C][H][W].
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise, nhwc: true)
                return
            }
            switch (x.sequence, perm) {
            case (.channelsFirst?, [0, 2, 1]):
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise, sequence: .channelsLast)
            case (.channelsLast?, [0, 2, 1]):
                values[out] = Value(tensor: x.tensor, isVector: false, pointwise: x.pointwise, sequence: .channelsFirst)
            case (nil, [0, 1, 2, 3]) where !x.isVector, (nil, [0, 1]) where x.isVector:
                values[out] = x
            default:
                throw Unsupported(detail: "with perm \(perm) (only [0, 2, 1] of a sequence [N, C, W] made by squeezing a map's height)")
            }
        case "Resize", "Upsample":
            try resize(node, a)
        case "Pad":
            try pad(node, a)
        default:
            throw Unsupported(detail: "")
        }
    }

    private func constantValue(_ node: Onnx_NodeProto, _ a: Attributes) throws -> ONNXTensor {
        let what = "\(source): Constant '\(node.output[0])'"
        if let t = a.byName["value"], t.hasT { return try ONNXTensor(t.t, what: what) }
        if let f = a.byName["value_float"] { return ONNXTensor(dims: [], floats: [f.f]) }
        if let f = a.byName["value_floats"] { return ONNXTensor(dims: [f.floats.count], floats: f.floats) }
        if let i = a.byName["value_int"] { return ONNXTensor(dims: [], floats: [Float(i.i)], ints: [Int(clamping: i.i)]) }
        if let i = a.byName["value_ints"] {
            return ONNXTensor(dims: [i.ints.count], floats: i.ints.map { Float($0) }, ints: i.ints.map { Int(clamping: $0) })
        }
        throw Unsupported(detail: "without a tensor, float or int value")
    }

    private mutating func activation(_ node: Onnx_NodeProto, _ f: NetworkGraph.ActivationFunction) throws {
        let x = try input(node, 0)
        emit(node, .activation(f), inputs: [x], isVector: x.isVector, pointwise: x.pointwise, sequence: x.sequence)
    }

    private mutating func clip(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        var low = -Float.infinity, high = Float.infinity
        if opset >= 11 {
            if let t = try constant(node, 1, "min") { low = t.floats.first ?? low }
            if let t = try constant(node, 2, "max") { high = t.floats.first ?? high }
        } else {
            low = a.float("min", low)
            high = a.float("max", high)
        }
        let f: NetworkGraph.ActivationFunction
        switch (low, high) {
        case (0, 6): f = .relu6
        case (0, .infinity): f = .relu
        default: throw Unsupported(detail: "to [\(low), \(high)] (only [0, 6] and [0, inf) map to an activation)")
        }
        emit(node, .activation(f), inputs: [x], isVector: x.isVector, pointwise: x.pointwise, sequence: x.sequence)
    }

    /// Add/Mul of two tensors, or of a tensor and a per-channel constant.
    private mutating func binary(_ node: Onnx_NodeProto) throws {
        guard node.input.count == 2 else {
            throw ONNXImportError("\(source): \(node.opType) '\(node.name)' has \(node.input.count) inputs")
        }
        let isAdd = node.opType != "Mul"
        let runtime = node.input.filter { values[$0] != nil }
        if runtime.count == 1 {
            let name = runtime[0]
            let x = values[name]!
            guard let c = constants[node.input.first { $0 != name } ?? name] else {
                throw ONNXImportError("\(source): \(node.opType) '\(node.name)' reads a value nothing makes")
            }
            let k = try perChannel(c, for: x, what: "constant")
            affine(node, x, inputName: name,
                   scale: isAdd ? [Float](repeating: 1, count: k.count) : k,
                   shift: isAdd ? k : [Float](repeating: 0, count: k.count))
            return
        }
        let a = try input(node, 0), b = try input(node, 1)
        let (pa, pb) = (isPointwise(a), isPointwise(b))
        if isAdd {
            guard pa == pb, a.isVector == b.isVector, a.sequence == b.sequence else {
                throw Unsupported(detail: "with broadcasting (only tensors of one shape add)")
            }
            emit(node, .add(.identity), inputs: [a, b], isVector: a.isVector, pointwise: pa, sequence: a.sequence)
            return
        }
        // x * hardsigmoid(x) with alpha 1/6, beta 1/2 is HardSwish (how opset < 14 exports write it).
        for (x, g) in [(a, b), (b, a)] {
            if let h = hardSigmoids[g.tensor], h.source == x.tensor, abs(h.alpha - 1 / 6) < 1e-6, h.beta == 0.5 {
                emit(node, .activation(.init(.hardSwish)), inputs: [x], isVector: x.isVector, pointwise: x.pointwise,
                     sequence: x.sequence)
                return
            }
        }
        guard a.sequence == nil, b.sequence == nil else { throw Unsupported(detail: "of two sequences") }
        switch (pa, pb) {
        case (false, true): emit(node, .channelMultiply, inputs: [a, b])
        case (true, _): emit(node, .channelMultiply, inputs: [b, a], isVector: b.isVector, pointwise: pb)
        default: throw Unsupported(detail: "of two feature maps (only a map times a [C,1,1] scale maps)")
        }
    }

    /// Begin/end padding of one axis for `auto_pad` (SAME_UPPER puts the odd cell at the end).
    private mutating func autoPadding(_ mode: String, kernel: (Int, Int), stride: (Int, Int), x: Value,
                                      pads: [Int]?) throws -> NetworkGraph.Padding {
        let extent = 1...Self.maximumExtent
        guard extent.contains(kernel.0), extent.contains(kernel.1), extent.contains(stride.0), extent.contains(stride.1),
              (pads ?? []).allSatisfy({ (0...Self.maximumExtent).contains($0) }) else {
            throw Unsupported(detail: "with kernel \(kernel), strides \(stride), pads \(pads ?? [])")
        }
        switch mode {
        case "NOTSET":
            let p = pads ?? [0, 0, 0, 0]
            guard p.count == 4 else { throw Unsupported(detail: "with pads \(p)") }
            return .init(top: p[0], left: p[1], bottom: p[2], right: p[3])
        case "VALID":
            return .zero
        case "SAME_UPPER", "SAME_LOWER":
            func total(_ k: Int, _ s: Int, _ size: Int?) throws -> Int {
                if s == 1 { return k - 1 }
                guard let size else { throw Unsupported(detail: "with auto_pad \(mode) and stride \(s) on an input of unknown size") }
                return max(((size + s - 1) / s - 1) * s + k - size, 0)
            }
            let s = shape(of: x.tensor)
            let th = try total(kernel.0, stride.0, s?.height), tw = try total(kernel.1, stride.1, s?.width)
            let upper = mode == "SAME_UPPER"
            let (top, left) = upper ? (th / 2, tw / 2) : ((th + 1) / 2, (tw + 1) / 2)
            return .init(top: top, left: left, bottom: th - top, right: tw - left)
        default:
            throw Unsupported(detail: "with auto_pad \(mode)")
        }
    }

    private mutating func convolution(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        let w = try required(node, 1, "weights")
        guard w.dims.count == 4 else { throw Unsupported(detail: "with \(w.dims.count)-D weights (only 2-D convolution)") }
        let (out, kh, kw) = (w.dims[0], w.dims[2], w.dims[3])
        if let d = a.ints("dilations"), d.contains(where: { $0 != 1 }) { throw Unsupported(detail: "with dilations \(d)") }
        if let k = a.ints("kernel_shape"), k != [kh, kw] {
            throw ONNXImportError("\(source): Conv '\(node.name)' has kernel_shape \(k) but \(kh)x\(kw) weights")
        }
        let strides = a.ints("strides") ?? [1, 1]
        guard strides.count == 2 else { throw Unsupported(detail: "with strides \(strides)") }
        let padding = try autoPadding(a.string("auto_pad", "NOTSET"), kernel: (kh, kw), stride: (strides[0], strides[1]),
                                      x: x, pads: a.ints("pads"))
        let groups = a.int("group", 1)
        guard groups >= 1, out >= 1, out % groups == 0 else {
            throw ONNXImportError("\(source): Conv '\(node.name)' has \(out) outputs in \(groups) groups")
        }
        let weights = addConstant(w.floats, name: node.input[1])
        var bias: Int?
        if let b = try constant(node, 2, "bias") {
            guard b.count == out else { throw ONNXImportError("\(source): Conv '\(node.name)' has \(b.count) biases for \(out) outputs") }
            bias = addConstant(b.floats, name: node.input[2])
        }
        var conv = NetworkGraph.Convolution(weights: weights, bias: bias, outputChannels: out, kernelHeight: kh, kernelWidth: kw,
                                            strideY: strides[0], strideX: strides[1], padding: padding, groups: groups)
        var source = x
        // A Pad read only by this conv becomes the conv's padding (exporters write reflection
        // padding, and some zero padding, as a Pad before an unpadded Conv). The Pad node is then
        // read by nothing and dropped; GraphLowering still runs reflect padding as its own step.
        if readers[node.input[0]] == 1, madeAs[x.tensor] == node.input[0], let index = producer[x.tensor],
           case .pad(let p, let mode) = nodes[index].operation, let padInput = nodes[index].inputs.first,
           mode == .zero || padding.isZero {
            conv.padding = .init(top: p.top + padding.top, left: p.left + padding.left,
                                 bottom: p.bottom + padding.bottom, right: p.right + padding.right)
            conv.paddingMode = mode
            source = Value(tensor: padInput, isVector: false, pointwise: false)
        }
        emit(node, .convolution(conv), inputs: [source], pointwise: x.pointwise && kh == 1 && kw == 1 && padding.isZero)
    }

    private mutating func transposedConvolution(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        let w = try required(node, 1, "weights")
        let strides = a.ints("strides") ?? [1, 1]
        let pads = a.ints("pads") ?? [0, 0, 0, 0]
        let outputPadding = a.ints("output_padding") ?? [0, 0]
        guard w.dims.count == 4, w.dims[2] == 2, w.dims[3] == 2, strides == [2, 2], pads.allSatisfy({ $0 == 0 }),
              outputPadding.allSatisfy({ $0 == 0 }), a.int("group", 1) == 1, !a.has("output_shape"),
              (a.ints("dilations") ?? [1, 1]).allSatisfy({ $0 == 1 }),
              ["NOTSET", "VALID"].contains(a.string("auto_pad", "NOTSET")) else {
            throw Unsupported(detail: "other than kernel 2, stride 2, no padding, one group (weights \(w.dims), strides \(strides))")
        }
        let out = w.dims[1]
        let weights = addConstant(w.floats, name: node.input[1])
        var bias: Int?
        if let b = try constant(node, 2, "bias") {
            guard b.count == out else { throw ONNXImportError("\(source): ConvTranspose '\(node.name)' has \(b.count) biases for \(out) outputs") }
            bias = addConstant(b.floats, name: node.input[2])
        }
        emit(node, .transposedConvolution(.init(weights: weights, bias: bias, outputChannels: out)), inputs: [x])
    }

    private mutating func poolWindow(_ node: Onnx_NodeProto, _ a: Attributes, x: Value) throws -> NetworkGraph.Pooling {
        guard let k = a.ints("kernel_shape"), k.count == 2, k[0] == k[1] else {
            throw Unsupported(detail: "with kernel \(a.ints("kernel_shape") ?? []) (only square 2-D windows)")
        }
        let strides = a.ints("strides") ?? [1, 1]
        guard strides.count == 2, strides[0] == strides[1] else { throw Unsupported(detail: "with strides \(strides)") }
        if let d = a.ints("dilations"), d.contains(where: { $0 != 1 }) { throw Unsupported(detail: "with dilations \(d)") }
        if a.int("ceil_mode", 0) != 0 { throw Unsupported(detail: "with ceil_mode") }
        let padding = try autoPadding(a.string("auto_pad", "NOTSET"), kernel: (k[0], k[1]), stride: (strides[0], strides[1]),
                                      x: x, pads: a.ints("pads"))
        return .init(kernel: k[0], stride: strides[0], padding: padding)
    }

    private mutating func maxPool(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        if node.output.count > 1, !node.output[1].isEmpty, readers[node.output[1]] != nil {
            throw Unsupported(detail: "with its indices read")
        }
        emit(node, .maxPool(try poolWindow(node, a, x: x)), inputs: [x])
    }

    /// A window covering the whole map of a fixed-size input is a global pool; any other
    /// window is a depthwise convolution whose weights are 1 / (its cells): exact where no
    /// padded cell is counted out (no padding, or `count_include_pad`), which is what maps.
    /// (PP-OCRv6's recogniser pools its 3-row map by a 3x2 window, stride 3x2, into a sequence.)
    private mutating func averagePool(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        guard !x.isVector, x.sequence == nil else { throw Unsupported(detail: "of a vector or sequence") }
        guard let k = a.ints("kernel_shape"), k.count == 2 else {
            throw Unsupported(detail: "with kernel \(a.ints("kernel_shape") ?? []) (only 2-D windows)")
        }
        let strides = a.ints("strides") ?? [1, 1]
        guard strides.count == 2 else { throw Unsupported(detail: "with strides \(strides)") }
        if let d = a.ints("dilations"), d.contains(where: { $0 != 1 }) { throw Unsupported(detail: "with dilations \(d)") }
        if a.int("ceil_mode", 0) != 0 { throw Unsupported(detail: "with ceil_mode") }
        let padding = try autoPadding(a.string("auto_pad", "NOTSET"), kernel: (k[0], k[1]), stride: (strides[0], strides[1]),
                                      x: x, pads: a.ints("pads"))
        if let s = shape(of: x.tensor), s.height == k[0], s.width == k[1], padding.isZero {
            emit(node, .globalAveragePool, inputs: [x], pointwise: true)
            return
        }
        guard padding.isZero || a.int("count_include_pad", 0) != 0 else {
            throw Unsupported(detail: "with padding not counted (count_include_pad 0)")
        }
        guard let c = channels(of: x) else { throw Unsupported(detail: "on a tensor of unknown channel count") }
        let cells = k[0] * k[1]
        let weights = addConstant([Float](repeating: 1 / Float(cells), count: c * cells), name: "\(node.name).window")
        emit(node, .convolution(.init(weights: weights, bias: nil, outputChannels: c, kernelHeight: k[0], kernelWidth: k[1],
                                      strideY: strides[0], strideX: strides[1], padding: padding, groups: c)),
             inputs: [x])
    }

    /// x / constant: the product by its reciprocal (folded like Mul).
    private mutating func divide(_ node: Onnx_NodeProto) throws {
        guard node.input.count == 2, values[node.input[0]] != nil, let divisor = constants[node.input[1]] else {
            throw Unsupported(detail: "of \(values[node.input.last ?? ""] != nil ? "by a computed tensor" : "a constant") (only a tensor by a constant maps)")
        }
        let x = try input(node, 0)
        let k = try perChannel(divisor, for: x, what: "divisor")
        guard k.allSatisfy({ $0 != 0 && $0.isFinite }) else { throw Unsupported(detail: "by zero or a non-finite constant") }
        affine(node, x, inputName: node.input[0], scale: k.map { 1 / $0 }, shift: [Float](repeating: 0, count: k.count))
    }

    private mutating func gemm(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        let b = try required(node, 1, "matrix")
        guard a.int("transA", 0) == 0, b.dims.count == 2 else {
            throw Unsupported(detail: "with transA or a \(b.dims.count)-D matrix")
        }
        let transB = a.int("transB", 0) != 0
        let (n, k) = transB ? (b.dims[0], b.dims[1]) : (b.dims[1], b.dims[0])
        let alpha = a.float("alpha", 1), beta = a.float("beta", 1)
        var w = [Float](repeating: 0, count: n * k)
        for o in 0..<n {
            for i in 0..<k { w[o * k + i] = alpha * (transB ? b.floats[o * k + i] : b.floats[i * n + o]) }
        }
        let weights = addConstant(w, name: node.input[1])
        var bias: Int?
        if let c = try constant(node, 2, "bias") {
            let values: [Float]
            switch c.count {
            case n: values = c.floats
            case 1: values = [Float](repeating: c.floats[0], count: n)
            default: throw Unsupported(detail: "with a bias of shape \(c.dims) for \(n) outputs")
            }
            bias = addConstant(values.map { beta * $0 }, name: node.input[2])
        }
        emit(node, .fullyConnected(weights: weights, bias: bias, outputs: n), inputs: [x], isVector: true, pointwise: true)
    }

    private mutating func reshape(_ node: Onnx_NodeProto) throws {
        let x = try input(node, 0)
        let target = try integers(node, 1, "shape") ?? []
        let out = node.output[0]
        let batchLike: (Int) -> Bool = { $0 == 1 || $0 == 0 || $0 == -1 }
        switch target.count {
        case 1:
            values[out] = Value(tensor: x.tensor, isVector: true, pointwise: x.pointwise)
        case 2 where batchLike(target[0]):
            values[out] = Value(tensor: x.tensor, isVector: true, pointwise: x.pointwise)
        case 4 where batchLike(target[0]) && target[2] == 1 && target[3] == 1 && isPointwise(x):
            values[out] = Value(tensor: x.tensor, isVector: false, pointwise: true)
        case 4 where batchLike(target[0]) && target[1] == 1 && target[2] == 1 && isPointwise(x):
            // [1, 1, 1, N]: a channels-last [N][1][1] map, the same floats.
            values[out] = Value(tensor: x.tensor, isVector: false, pointwise: true, nhwc: true)
        case 4 where !x.isVector:
            if let s = shape(of: x.tensor), target == [1, s.channels, s.height, s.width] || target == [-1, s.channels, s.height, s.width] {
                values[out] = x
            } else {
                throw Unsupported(detail: "to \(target) (only to a vector, to [1, C, 1, 1], or to the same shape)")
            }
        default:
            throw Unsupported(detail: "to \(target) (only to a vector, to [1, C, 1, 1], or to the same shape)")
        }
    }

    private mutating func resize(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        let mode = a.string("mode", "nearest")
        var scales: [Float]?
        var sizes: [Int]?
        if node.opType == "Upsample" {
            scales = opset >= 9 ? try constant(node, 1, "scales")?.floats : a.floats("scales")
        } else if opset < 11 {
            scales = try constant(node, 1, "scales")?.floats
        } else {
            scales = try constant(node, 2, "scales")?.floats
            if scales?.isEmpty ?? true { sizes = try integers(node, 3, "sizes"); scales = nil }
        }
        if a.has("axes") { throw Unsupported(detail: "with axes") }
        if a.int("antialias", 0) != 0 { throw Unsupported(detail: "with antialias") }
        var factor: Int?
        if let scales, scales.count == 4, scales[0] == 1, scales[1] == 1, scales[2] == scales[3],
           scales[2] >= 1, scales[2].rounded() == scales[2], scales[2] <= 64 {
            factor = Int(scales[2])
        } else if let sizes, sizes.count == 4, let s = shape(of: x.tensor), sizes[0] == 1, sizes[1] == s.channels,
                  sizes[2] % s.height == 0, sizes[3] % s.width == 0, sizes[2] / s.height == sizes[3] / s.width {
            factor = sizes[2] / s.height
        }
        if let factor, let s = shape(of: x.tensor), max(s.height, s.width) * factor > Self.maximumExtent {
            throw Unsupported(detail: "to more than \(Self.maximumExtent) pixels a side")
        }
        guard let factor else {
            throw Unsupported(detail: "by scales \(scales ?? []) / sizes \(sizes ?? []) (only one integer factor on H and W)")
        }
        // Upsample and opset-10 Resize are "asymmetric" (source = destination / scale).
        let legacy = node.opType == "Upsample" || opset < 11
        let transform = legacy ? "asymmetric" : a.string("coordinate_transformation_mode", "half_pixel")
        let rounding = legacy ? "floor" : a.string("nearest_mode", "round_prefer_floor")
        let resizeMode: NetworkGraph.ResizeMode
        switch (mode, transform) {
        // Half-pixel nearest with an integer factor picks floor(y / s) whatever the rounding
        // ((r + 0.5) / s - 0.5 lies strictly inside (-0.5, 0.5) for every remainder r).
        case ("nearest", "half_pixel"), ("nearest", "pytorch_half_pixel"):
            resizeMode = .nearest
        case ("nearest", "asymmetric") where rounding == "floor":
            resizeMode = .nearest
        case ("linear", "half_pixel"), ("linear", "pytorch_half_pixel"):
            resizeMode = .bilinear
        default:
            throw Unsupported(detail: "in mode \(mode) with \(transform) coordinates\(mode == "nearest" ? " and \(rounding) rounding" : "")")
        }
        emit(node, .resize(resizeMode, scale: factor), inputs: [x])
    }

    private mutating func pad(_ node: Onnx_NodeProto, _ a: Attributes) throws {
        let x = try input(node, 0)
        var pads: [Int]
        var value: Float = 0
        if opset >= 11 {
            pads = try integers(node, 1, "pads") ?? []
            value = try constant(node, 2, "constant value")?.floats.first ?? 0
            if node.input.count > 3, !node.input[3].isEmpty { throw Unsupported(detail: "with axes") }
        } else {
            pads = a.ints("pads") ?? []
            value = a.float("value", 0)
        }
        let mode = a.string("mode", "constant")
        if x.nhwc, pads.count == 8 {
            // [N, H, W, C] pads to the NCHW order.
            pads = [pads[0], pads[3], pads[1], pads[2], pads[4], pads[7], pads[5], pads[6]]
        }
        guard !x.isVector, pads.count == 8, pads[0] == 0, pads[1] == 0, pads[4] == 0, pads[5] == 0,
              pads.allSatisfy({ (0...Self.maximumExtent).contains($0) }) else {
            throw Unsupported(detail: "with pads \(pads) (only non-negative padding of H and W)")
        }
        let paddingMode: NetworkGraph.PaddingMode
        switch mode {
        case "constant" where value == 0: paddingMode = .zero
        case "reflect": paddingMode = .reflect
        default: throw Unsupported(detail: "in mode \(mode)\(mode == "constant" ? " with value \(value)" : "") (only zeros or reflect)")
        }
        emit(node, .pad(.init(top: pads[2], left: pads[3], bottom: pads[6], right: pads[7]), paddingMode), inputs: [x])
        values[node.output[0]]?.nhwc = x.nhwc
    }
}
