/// Lowering of networks built from *normalised convolution blocks*, the style network's shape
/// (Dumoulin et al. 2017; `StyleNetwork.graph`):
///
///     [resize nearest ×2] → convolution (reflect padding, no bias) → instance_norm [→ add x]
///
/// Each block becomes the four steps the style kernels run, with no tensor in between: `Pad`
/// (the ×2 upsample folded into its reads; split columns for stride 2), `Convolution`,
/// `InstanceNormStatistics`, and `InstanceNormApply` with the activation and the residual add fused. Block
/// outputs live in the whole-buffer slots `.a`, `.b`, `.c`, assigned by liveness: a block takes
/// the first slot no live tensor holds (a tensor is live from the block that makes it to the
/// last block that reads it, both included, so a block never writes the slot it reads).
///
/// These kernels keep planes 64-float aligned (`DenseShape`), unlike the dense `Region`s of the
/// other ops, so a graph with instance norm must be made of such blocks throughout (its input
/// the graph's, its blocks reading only blocks); anything else is an error naming the node.
extension GraphLowering {
    /// The slots block outputs are placed in, in order of preference.
    static let blockSlots: [ExecutionPlan.Buffer] = [.a, .b, .c]

    struct NormalizedBlock {
        var upsample: Bool
        var input: Int
        var convolution: NetworkGraph.Convolution
        var norm: NetworkGraph.InstanceNorm
        /// Row of the run-time γβ table (the norm's position among the graph's instance norms).
        var row: Int
        var residual: Int?
        var output: Int
    }

    static func containsInstanceNorm(_ graph: NetworkGraph) -> Bool {
        graph.nodes.contains { if case .instanceNorm = $0.operation { true } else { false } }
    }

    /// Lowers a graph of normalised convolution blocks (see above); `graph` has its activations
    /// fused already.
    static func lowerNormalizedBlocks(_ graph: NetworkGraph, input shape: NetworkGraph.Shape,
                                      shapes: [NetworkGraph.Shape?]) throws -> ExecutionPlan {
        let blocks = try normalizedBlocks(graph)
        guard let last = blocks.last, last.output == graph.output else {
            throw GraphError("the graph's output is not made by its last normalised convolution block")
        }

        // Liveness: the last block reading each tensor.
        var lastRead: [Int: Int] = [:]
        for (index, block) in blocks.enumerated() {
            lastRead[block.input] = index
            if let residual = block.residual { lastRead[residual] = index }
        }

        var steps: [ExecutionPlan.Step] = []
        var sizes: [ExecutionPlan.Buffer: Int] = [:]
        func use(_ buffer: ExecutionPlan.Buffer, _ floats: Int) { sizes[buffer] = max(sizes[buffer] ?? 0, floats) }

        let inputShape = ExecutionPlan.DenseShape(shape)
        use(.input, inputShape.floatCount)
        var slot: [Int: ExecutionPlan.Buffer] = [graph.input: .input]
        for (index, block) in blocks.enumerated() {
            let busy = Set(slot.filter { tensor, _ in (lastRead[tensor] ?? -1) >= index }.values)
            guard let destination = blockSlots.first(where: { !busy.contains($0) }) else {
                throw GraphError("block \(index) needs more than \(blockSlots.count) live tensors")
            }
            let c = block.convolution
            let pad = ExecutionPlan.Pad(source: slot[block.input]!, destination: .padded,
                                        sourceShape: ExecutionPlan.DenseShape(shapes[block.input]!),
                                        upsample: block.upsample, padding: c.padding.top, split: c.strideY == 2)
            use(.padded, pad.floatCount)
            steps.append(.pad(pad))
            let convolution = ExecutionPlan.Convolution(layer: c.weights, input: pad, destination: destination,
                                                        outputChannels: c.outputChannels, kernel: c.kernelHeight,
                                                        stride: c.strideY)
            let outputShape = convolution.outputShape
            use(destination, outputShape.floatCount)
            steps.append(.convolution(convolution))
            steps.append(.instanceNormStatistics(.init(layer: block.row, source: destination, shape: outputShape)))
            steps.append(.instanceNormApply(.init(layer: block.row, source: destination, destination: destination, shape: outputShape,
                                          activation: block.norm.activation.kind, residual: block.residual.map { slot[$0]! })))
            slot[block.output] = destination
        }
        let outputShape = ExecutionPlan.DenseShape(shapes[last.output]!)
        return ExecutionPlan(steps: steps, bufferFloats: sizes, inputShape: inputShape, output: slot[last.output]!,
                             outputShape: outputShape, outputFloats: outputShape.floatCount).fusingPads()
    }

    /// The graph's nodes grouped into blocks, or an error naming the first node that fits none.
    static func normalizedBlocks(_ graph: NetworkGraph) throws -> [NormalizedBlock] {
        var readers = [Int](repeating: 0, count: graph.tensorCount)
        for node in graph.nodes { for tensor in node.inputs { readers[tensor] += 1 } }
        var made: Set<Int> = [graph.input]
        var blocks: [NormalizedBlock] = []
        let nodes = graph.nodes
        var i = 0
        func fail(_ node: NetworkGraph.Node, _ why: String) -> GraphError {
            GraphError("node \(node.name) (\(node.operation.name)): \(why); a network with instance norm is made of "
                       + "[resize nearest x2] -> convolution (reflect padding, no bias) -> instance_norm [-> add] blocks")
        }
        while i < nodes.count {
            var upsample = false
            var input = nodes[i].inputs.first ?? -1
            if case .resize(.nearest, 2) = nodes[i].operation, readers[nodes[i].output] == 1 {
                upsample = true
                i += 1
                guard i < nodes.count else { throw fail(nodes[i - 1], "is not followed by a convolution") }
                guard nodes[i].inputs == [nodes[i - 1].output] else { throw fail(nodes[i], "does not read the resize before it") }
            }
            let convNode = nodes[i]
            guard case .convolution(let c) = convNode.operation else { throw fail(convNode, "does not start a block") }
            guard c.groups == 1, c.bias == nil, c.activation == .identity else {
                throw fail(convNode, "has groups, a bias or an activation")
            }
            let p = c.padding.top
            guard c.kernelHeight == c.kernelWidth, c.strideY == c.strideX, c.strideY == 1 || c.strideY == 2,
                  c.padding == .init(p), c.paddingMode == .reflect || p == 0 else {
                throw fail(convNode, "is not square, stride 1 or 2, with equal reflect padding on every side")
            }
            guard readers[convNode.output] == 1, i + 1 < nodes.count, case .instanceNorm(let norm) = nodes[i + 1].operation,
                  nodes[i + 1].inputs == [convNode.output] else {
                throw fail(convNode, "is not read by an instance_norm alone")
            }
            if !upsample { input = convNode.inputs[0] }
            guard made.contains(input) else { throw fail(convNode, "reads a tensor no block made") }
            var block = NormalizedBlock(upsample: upsample, input: input, convolution: c, norm: norm, row: blocks.count,
                                        residual: nil, output: nodes[i + 1].output)
            i += 2
            if i < nodes.count, case .add(let a) = nodes[i].operation, a == .identity, readers[block.output] == 1,
               let other = nodes[i].inputs.firstIndex(of: block.output).map({ nodes[i].inputs[1 - $0] }) {
                guard made.contains(other), other != block.output else { throw fail(nodes[i], "adds a tensor no block made") }
                block.residual = other
                block.output = nodes[i].output
                i += 1
            }
            made.insert(block.output)
            blocks.append(block)
        }
        return blocks
    }
}

extension NetworkGraph {
    /// The run-time table the normalisation steps read: for each instance norm in node order,
    /// γ in `[0, maxChannels)` and β in `[maxChannels, 2 maxChannels)` of its row, each the sum of
    /// its styles' rows weighted by `mix` (one weight per style).
    public func instanceNormParameters(mix: [Float]) -> [Float] {
        let norms = nodes.compactMap { node -> (InstanceNorm, Int)? in
            guard case .instanceNorm(let n) = node.operation else { return nil }
            return (n, constants[n.gamma].count / n.styles)
        }
        let stride = ExecutionPlan.parametersPerLayer
        let maxChannels = InstanceNorm.maxChannels
        var table = [Float](repeating: 0, count: norms.count * stride)
        for (row, (norm, channels)) in norms.enumerated() {
            precondition(mix.count == norm.styles, "one mix weight per style")
            let gamma = constants[norm.gamma], beta = constants[norm.beta]
            for c in 0..<channels {
                var g: Float = 0, b: Float = 0
                for (style, weight) in mix.enumerated() where weight != 0 {
                    g += weight * gamma[style * channels + c]
                    b += weight * beta[style * channels + c]
                }
                table[row * stride + c] = g
                table[row * stride + maxChannels + c] = b
            }
        }
        return table
    }
}
