import Foundation

/// Evaluates nodes whose inputs are all constants, for the small shape computations exporters
/// leave in a graph (torch's legacy exporter writes F.pad's pads as ConstantOfShape, Concat,
/// Reshape, Slice with step -1, Transpose and Cast instead of one constant).
extension ONNXGraphBuilder {
    static let foldable: Set<String> = ["Identity", "Cast", "ConstantOfShape", "Concat", "Reshape", "Slice",
                                        "Transpose", "Unsqueeze", "Squeeze", "Gather", "DequantizeLinear"]

    /// The most values ConstantOfShape, Concat and Gather may make beyond what their inputs
    /// hold. Those three can make more values than the file holds (a shape, a name repeated, an
    /// index repeated): without a bound a few bytes made a ConstantOfShape of 10^8 values, and
    /// describing it in Pad's error took 30 s (tools/fuzz, onnx target); at 2^30 it is 12 GB.
    /// Folded shape computations are a few values. 2^20 (4 MB of floats), not 2^24: the fuzzer
    /// then transposed a folded 2^24 values in 24 s under ASan. A Concat or Gather of real
    /// weights may make as many values as its data input holds (a 1280x1000 classifier weight
    /// is 1.28 M), so the bound is the larger of the two. The other folded ops make at most as
    /// many values as their input, which is bounded by this or by the file's bytes.
    static let maximumFoldedElements = 1 << 20
    /// The bound for a ConstantOfShape read only as a layer's weights: ONNX's "light" test models
    /// (the onnx package's backend/test/data/light) make every weight that way, up to VGG-19's
    /// 25088x4096 classifier (102.8 M values, 411 MB); 2^27 is 512 MB. The shapes of such a
    /// weight are then checked by its layer, and nothing describes or transposes it whole.
    static let maximumFoldedWeightElements = 1 << 27
    /// Ops whose inputs after the first are weights (kernel, bias, scale, statistics).
    static let weightOps: Set<String> = ["Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization"]

    /// Whether every reader of `name` reads it as a layer's weights.
    func isWeightOnly(_ name: String) -> Bool {
        guard let reads = readers[name], reads > 0 else { return false }
        return weightReads[name] == reads
    }

    /// Throws unless `count` values are within the bound for an op whose inputs hold `available`.
    static func checkFolded(_ count: Int, available: Int, _ bad: (String) -> Error) throws {
        guard count <= max(maximumFoldedElements, available) else {
            throw bad("makes \(count) values (at most \(max(maximumFoldedElements, available)) are folded)")
        }
    }

    /// The node's value if it can be computed now, else nil (it is then mapped as an op).
    func folded(_ node: Onnx_NodeProto, _ a: Attributes) throws -> ONNXTensor? {
        let names = node.input.filter { !$0.isEmpty }
        guard Self.foldable.contains(node.opType), !names.isEmpty, node.output.count == 1 else { return nil }
        let inputs = names.compactMap { constants[$0] }
        guard inputs.count == names.count else { return nil }
        func bad(_ why: String) -> ONNXImportError { ONNXImportError("\(source): \(node.opType) '\(node.name)': \(why)") }
        func ints(_ t: ONNXTensor) throws -> [Int] {
            guard let ints = t.ints else { throw bad("expects an integer tensor") }
            return ints
        }
        func axis(_ axis: Int, rank: Int) throws -> Int {
            let a = axis < 0 ? axis + rank : axis
            guard a >= 0, a < max(rank, 1) else { throw bad("axis \(axis) of a rank-\(rank) tensor") }
            return a
        }
        let x = inputs[0]
        switch node.opType {
        case "Identity":
            return x
        case "DequantizeLinear":
            return try foldedDequantize(node, a, inputs)
        case "Cast":
            let to = a.int("to", 1)
            if [1, 10, 11].contains(to) { return ONNXTensor(dims: x.dims, floats: x.floats) }
            return ONNXTensor(dims: x.dims, floats: x.floats.map { $0.rounded(.towardZero) },
                              ints: try x.floats.map { value -> Int in
                                  guard value.isFinite, abs(value) < 0x1p62 else { throw bad("cannot cast \(value) to an integer") }
                                  return Int(value)
                              })
        case "ConstantOfShape":
            let dims = try ints(x)
            let count = try checkedCount(dims, bad)
            try Self.checkFolded(count, available: isWeightOnly(node.output[0]) ? Self.maximumFoldedWeightElements : 0, bad)
            var value = ONNXTensor(dims: [], floats: [0], ints: nil)
            if let t = a.byName["value"], t.hasT { value = try ONNXTensor(t.t, what: "\(source): ConstantOfShape value") }
            guard let v = value.floats.first else { throw bad("empty value") }
            return ONNXTensor(dims: dims, floats: [Float](repeating: v, count: count),
                              ints: value.ints.map { [Int](repeating: $0.first ?? 0, count: count) })
        case "Concat":
            let rank = x.dims.count
            let k = try axis(a.int("axis", 0), rank: rank)
            func fits(_ t: ONNXTensor) -> Bool {
                t.dims.count == rank && (0..<rank).allSatisfy { i in i == k || t.dims[i] == x.dims[i] }
            }
            guard inputs.allSatisfy(fits) else {
                throw bad("concatenates tensors of shapes \(inputs.map(\.dims))")
            }
            // Each distinct input once: a name repeated is what amplifies.
            let distinct = Dictionary(zip(names, inputs), uniquingKeysWith: { first, _ in first }).values
            try Self.checkFolded(inputs.reduce(0) { $0 + $1.count }, available: distinct.reduce(0) { $0 + $1.count }, bad)
            let outer = x.dims[..<k].reduce(1, *), inner = x.dims[(k + 1)...].reduce(1, *)
            var floats: [Float] = [], values: [Int]? = inputs.allSatisfy({ $0.ints != nil }) ? [] : nil
            for o in 0..<outer {
                for t in inputs {
                    let chunk = t.dims[k] * inner
                    floats += t.floats[o * chunk..<(o + 1) * chunk]
                    values? += t.ints![o * chunk..<(o + 1) * chunk]
                }
            }
            var dims = x.dims
            dims[k] = inputs.reduce(0) { $0 + $1.dims[k] }
            return ONNXTensor(dims: dims, floats: floats, ints: values)
        case "Reshape":
            guard inputs.count == 2 else { throw bad("takes data and shape") }
            var dims = try ints(inputs[1])
            for i in dims.indices where dims[i] == 0 && a.int("allowzero", 0) == 0 {
                guard i < x.dims.count else { throw bad("copies dimension \(i) of a rank-\(x.dims.count) tensor") }
                dims[i] = x.dims[i]
            }
            if let unknown = dims.firstIndex(of: -1) {
                let known = try checkedCount(dims.enumerated().filter { $0.offset != unknown }.map(\.element), bad)
                guard known > 0, x.count % known == 0 else { throw bad("cannot reshape \(x.dims) to \(dims)") }
                dims[unknown] = x.count / known
            }
            guard dims.allSatisfy({ $0 >= 0 }), try checkedCount(dims, bad) == x.count else { throw bad("cannot reshape \(x.dims) to \(dims)") }
            return ONNXTensor(dims: dims, floats: x.floats, ints: x.ints)
        case "Slice":
            guard inputs.count >= 3 else { throw bad("takes data, starts and ends") }
            let starts = try ints(inputs[1]), ends = try ints(inputs[2])
            let axes = try inputs.count > 3 ? ints(inputs[3]) : Array(starts.indices)
            let steps = try inputs.count > 4 ? ints(inputs[4]) : [Int](repeating: 1, count: starts.count)
            guard ends.count == starts.count, axes.count == starts.count, steps.count == starts.count else {
                throw bad("starts, ends, axes and steps differ in length")
            }
            var selection = x.dims.map { Array(0..<$0) }
            for i in starts.indices {
                let k = try axis(axes[i], rank: x.dims.count), n = x.dims[k], step = steps[i]
                guard step != 0 else { throw bad("step 0") }
                // ONNX: negative starts/ends count from the end; then clamp to [0, n] (step > 0)
                // or [-1, n - 1] (step < 0).
                func clamp(_ v: Int) -> Int {
                    let v = v < 0 ? max(v, Int.min / 2) + n : v
                    return step > 0 ? min(max(v, 0), n) : min(max(v, -1), n - 1)
                }
                selection[k] = Array(stride(from: clamp(starts[i]), to: clamp(ends[i]), by: step))
            }
            return x.selecting(selection)
        case "Transpose":
            let perm = a.ints("perm") ?? Array(x.dims.indices.reversed())
            guard perm.sorted() == Array(x.dims.indices) else { throw bad("permutation \(perm) of rank \(x.dims.count)") }
            return x.transposed(perm)
        case "Unsqueeze", "Squeeze":
            let axes = try (opset >= 13 ? (inputs.count > 1 ? ints(inputs[1]) : nil) : a.ints("axes"))
            var dims = x.dims
            if node.opType == "Unsqueeze" {
                let rank = dims.count + (axes?.count ?? 0)
                for k in try (axes ?? []).map({ try axis($0, rank: rank) }).sorted() {
                    guard k <= dims.count else { throw bad("axis \(k)") }
                    dims.insert(1, at: k)
                }
            } else if let axes {
                let remove = Set(try axes.map { try axis($0, rank: dims.count) })
                guard remove.allSatisfy({ dims[$0] == 1 }) else { throw bad("squeezes an axis that is not 1") }
                dims = dims.enumerated().filter { !remove.contains($0.offset) }.map(\.element)
            } else {
                dims = dims.filter { $0 != 1 }
            }
            return ONNXTensor(dims: dims, floats: x.floats, ints: x.ints)
        case "Gather":
            guard inputs.count == 2 else { throw bad("takes data and indices") }
            let k = try axis(a.int("axis", 0), rank: x.dims.count)
            let indices = try ints(inputs[1]).map { $0 < 0 ? $0 + x.dims[k] : $0 }
            guard indices.allSatisfy({ $0 >= 0 && $0 < x.dims[k] }) else { throw bad("index out of range") }
            let total = indices.isEmpty ? 0 : x.count / x.dims[k] * indices.count
            try Self.checkFolded(total, available: x.count, bad)
            var selection = x.dims.map { Array(0..<$0) }
            selection[k] = indices
            var result = x.selecting(selection)
            result.dims.replaceSubrange(k...k, with: inputs[1].dims)
            return result
        default:
            return nil
        }
    }

    private func checkedCount(_ dims: [Int], _ bad: (String) -> ONNXImportError) throws -> Int {
        var count = 1
        for d in dims {
            guard d >= 0 else { throw bad("dimension \(d)") }
            let (product, overflow) = count.multipliedReportingOverflow(by: d)
            count = product
            guard !overflow, count <= ONNXTensor.maximumElements else { throw bad("more than \(ONNXTensor.maximumElements) elements") }
        }
        return count
    }
}

extension ONNXTensor {
    /// The elements at the listed indices of each axis (`selection[axis]`), in order.
    func selecting(_ selection: [[Int]]) -> ONNXTensor {
        let strides = rowMajorStrides
        return gathered(selection.map(\.count)) { index in
            index.indices.reduce(0) { $0 + selection[$1][index[$1]] * strides[$1] }
        }
    }

    /// Axes permuted: output axis k is input axis perm[k].
    func transposed(_ perm: [Int]) -> ONNXTensor {
        let strides = rowMajorStrides
        return gathered(perm.map { dims[$0] }) { index in
            perm.indices.reduce(0) { $0 + index[$1] * strides[perm[$1]] }
        }
    }

    /// Elements between consecutive entries of each axis, in C order.
    private var rowMajorStrides: [Int] {
        var strides = [Int](repeating: 1, count: dims.count)
        for k in stride(from: dims.count - 2, through: 0, by: -1) { strides[k] = strides[k + 1] * dims[k + 1] }
        return strides
    }

    /// The tensor of `outDims` whose element at each index (a multi-index, visited in C order) is
    /// this tensor's element at the flat position `source(index)`.
    private func gathered(_ outDims: [Int], _ source: ([Int]) -> Int) -> ONNXTensor {
        let total = outDims.reduce(1, *)
        var index = [Int](repeating: 0, count: outDims.count)
        var floatsOut: [Float] = [], intsOut: [Int]? = ints == nil ? nil : []
        floatsOut.reserveCapacity(total)
        for _ in 0..<total {
            let flat = source(index)
            floatsOut.append(floats[flat])
            intsOut?.append(ints![flat])
            var k = outDims.count - 1
            while k >= 0 {
                index[k] += 1
                if index[k] < outDims[k] { break }
                index[k] = 0
                k -= 1
            }
        }
        return ONNXTensor(dims: outDims, floats: floatsOut, ints: intsOut)
    }
}
