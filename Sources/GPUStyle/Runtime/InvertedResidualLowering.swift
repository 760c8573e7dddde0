/// Finding MobileNetV2's inverted residual blocks in a graph (`ExecutionPlan.InvertedResidual`):
/// [1x1 expand] -> depthwise -> 1x1 project [-> add of the block's input], where each tensor
/// passed along the chain is read by the next node alone and is not the graph's output.
extension GraphLowering {
    /// Node indices of one block; `last` is where the lowered step goes (every input of the
    /// block is made before it, and nothing outside reads the tensors inside).
    struct InvertedResidualChain: Equatable {
        var expand: Int?
        var depthwise: Int
        var project: Int
        var add: Int?
        var last: Int { add ?? project }
        var members: [Int] { [expand, depthwise, project, add].compactMap { $0 } }
    }

    static func invertedResidualChains(_ graph: NetworkGraph, shapes: [NetworkGraph.Shape?]) -> [InvertedResidualChain] {
        var readers = [Int](repeating: 0, count: graph.tensorCount)
        var reader: [Int: Int] = [:]
        var producer: [Int: Int] = [:]
        for (index, node) in graph.nodes.enumerated() {
            producer[node.output] = index
            for tensor in node.inputs where tensor >= 0 && tensor < graph.tensorCount {
                readers[tensor] += 1
                reader[tensor] = index
            }
        }
        func convolution(_ index: Int?) -> NetworkGraph.Convolution? {
            guard let index, case .convolution(let c) = graph.nodes[index].operation else { return nil }
            return c
        }
        func isPointwise(_ c: NetworkGraph.Convolution?) -> Bool {
            guard let c else { return false }
            return c.kernelHeight == 1 && c.kernelWidth == 1 && c.strideY == 1 && c.strideX == 1 && c.padding.isZero
                && c.groups == 1
        }
        /// The tensor is handed from one node to the next only.
        func passedOn(_ tensor: Int) -> Bool { readers[tensor] == 1 && tensor != graph.output }

        var chains: [InvertedResidualChain] = []
        var used = Set<Int>()
        for (index, node) in graph.nodes.enumerated() where isPointwise(convolution(index)) {
            let filtered = node.inputs[0]
            guard passedOn(filtered), let d = producer[filtered], let dw = convolution(d),
                  let source = graph.nodes[d].inputs.first, let sourceShape = shapes[source],
                  dw.groups > 1, dw.groups == sourceShape.channels, dw.groups == dw.outputChannels,
                  dw.paddingMode == .zero || dw.padding.isZero else { continue }
            var chain = InvertedResidualChain(expand: nil, depthwise: d, project: index, add: nil)
            var blockInput = source
            if passedOn(source), let e = producer[source], isPointwise(convolution(e)) {
                chain.expand = e
                blockInput = graph.nodes[e].inputs[0]
            }
            let projected = node.output
            if passedOn(projected), let a = reader[projected], case .add(let f) = graph.nodes[a].operation, f == .identity,
               Set(graph.nodes[a].inputs) == [projected, blockInput] {
                chain.add = a
            }
            guard used.isDisjoint(with: chain.members) else { continue }
            used.formUnion(chain.members)
            chains.append(chain)
        }
        return chains
    }
}
