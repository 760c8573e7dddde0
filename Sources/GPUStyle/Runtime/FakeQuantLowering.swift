/// Fake quantisations (an int8 QDQ model's activation QuantizeLinear/DequantizeLinear pairs,
/// `fake_quant` nodes) at lowering: each one is folded into the epilogue of the step before it,
/// or dropped where it provably changes nothing. Both keep every value bit for bit.
extension GraphLowering {
    /// The graph with each `fake_quant` node that needs no pass of its own removed, and the
    /// quantisation the remaining nodes apply to their outputs, by output tensor:
    ///
    /// - **Fused**: a fake quantisation whose input is read by it alone (and is not the graph's
    ///   output), made by a convolution (with its fused activation), an add or an activation,
    ///   becomes that node's epilogue: the node writes the fake quantisation's tensor, and the
    ///   kernels round each value after the bias and activation as `fake_quant.c` would have on
    ///   the stored float (`Conv2D.quantize`, `Add.quantize`, `ActivationStep.quantize`).
    /// - **Dropped**: a fake quantisation of a tensor already on its grid (`isOnGrid`) is the
    ///   identity, and its readers read that tensor instead (the arbitrary-style transform
    ///   quantises each reflection padding again with the quantiser of the padded map).
    ///
    /// Why the identity holds: a value on the grid of q = (scale s, range [lo, hi] minus the zero
    /// point) is v = fl(k s) for an integer k in [lo, hi], |k| <= 255. Fake quantisation computes
    /// fl(v / s) = k (1 + d) with |d| <= 2^-24 + 2^-24 + 2^-48 < 2^-22 (two roundings), so it is
    /// within 255 x 2^-22 < 1/2 of k; clamping to [lo, hi] (k is inside) keeps it there, rounding
    /// to the nearest integer gives k exactly, and fl(k s) = v. Zero is k = 0 (v = +0), a value
    /// of the grid when lo <= 0 <= hi. A reflect padding only copies values, so the padded
    /// tensor of an on-grid tensor is on the grid; a zero padding adds zeros, which are on it when
    /// 0 is in the range (always, for a zero point in its range as NetworkGraph checks). (`FakeQuantTests.testFakeQuantizationOfItsOwnGridIsTheIdentity` checks
    /// every value of the int8 and uint8 grids of a few scales.)
    static func fusingFakeQuantization(_ graph: NetworkGraph) -> (graph: NetworkGraph, epilogues: [Int: NetworkGraph.FakeQuantize]) {
        var readers = [Int](repeating: 0, count: graph.tensorCount)
        for node in graph.nodes { for tensor in node.inputs where tensor >= 0 && tensor < graph.tensorCount { readers[tensor] += 1 } }
        var nodes = graph.nodes
        var producer: [Int: Int] = [:]
        var epilogues: [Int: NetworkGraph.FakeQuantize] = [:]
        var removed = Set<Int>()
        var renamed: [Int: Int] = [:]  // a dropped quantisation's output -> the tensor it equals

        /// Whether every value of `tensor` is on q's grid (see above).
        func isOnGrid(_ tensor: Int, _ q: NetworkGraph.FakeQuantize) -> Bool {
            if epilogues[tensor] == q { return true }
            guard let index = producer[tensor] else { return false }
            let node = nodes[index]
            switch node.operation {
            case .fakeQuantize(let made): return made == q
            case .quantizedInstanceNorm(let norm): return norm.quantizers.count == 10 && norm.quantizers[9] == q
            case .pad(_, .reflect): return isOnGrid(node.inputs[0], q)
            case .pad(_, .zero): return q.low <= q.zeroPoint && q.zeroPoint <= q.high && isOnGrid(node.inputs[0], q)
            default: return false
            }
        }

        for index in nodes.indices {
            nodes[index].inputs = nodes[index].inputs.map { renamed[$0] ?? $0 }
            let node = nodes[index]
            guard case .fakeQuantize(let q) = node.operation, let x = node.inputs.first else {
                producer[node.output] = index
                continue
            }
            if node.output != graph.output && isOnGrid(x, q) {
                renamed[node.output] = x
                readers[x] += readers[node.output] - 1
                removed.insert(index)
                continue
            }
            guard x != graph.output, readers[x] == 1, epilogues[x] == nil, let source = producer[x] else {
                producer[node.output] = index
                continue
            }
            switch nodes[source].operation {
            case .convolution, .add, .activation:
                nodes[source].output = node.output
                producer[node.output] = source
                epilogues[node.output] = q
                removed.insert(index)
            default:
                producer[node.output] = index
            }
        }
        var fused = graph
        fused.nodes = nodes.indices.filter { !removed.contains($0) }.map { nodes[$0] }
        return (fused, epilogues)
    }
}
