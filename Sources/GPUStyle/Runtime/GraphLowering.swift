/// Lowers a `NetworkGraph` for one input size into the `ExecutionPlan` both backends run:
///
/// 1. an activation whose only reader is the activation node is fused into the (transposed)
///    convolution or add before it (one pass over memory instead of two), and so is a fake quantisation into
///    the convolution, add or activation before it, unless `fusingQuantization` is off; a fake
///    quantisation of a tensor already on its grid is dropped (`FakeQuantLowering.swift`);
/// 2. each node becomes steps: a fully connected layer is the convolution whose kernel covers
///    its input, a reflection-padded convolution is a `Pad2D` then an unpadded `Conv2D`, a
///    concat is one `Copy` per input into its channel slice;
/// 3. each inverted residual block ([1x1 expand] -> depthwise -> 1x1 project [-> add]) becomes
///    one `InvertedResidual` step (`InvertedResidualLowering.swift`) unless `fusingBlocks` is off;
/// 4. every intermediate tensor gets an offset in one pool by liveness (`BufferPlanner`):
///    two tensors share floats only if no step needs both.
///
/// Networks with instance norm (the style network) are lowered block by block onto the style
/// kernels instead (`NormalizedBlockLowering.swift`).
public enum GraphLowering {
    /// Pool offsets are multiples of this many floats (256 bytes: any Vulkan
    /// `minStorageBufferOffsetAlignment`), so each tensor can be bound on its own.
    public static let offsetAlignment = ExecutionPlan.planeAlignment

    public static func lower(_ graph: NetworkGraph, input shape: NetworkGraph.Shape,
                             fusingBlocks: Bool = true, fusingQuantization: Bool = true) throws -> ExecutionPlan {
        let (graph, epilogues) = fusingQuantization ? fusingFakeQuantization(fusingActivations(graph))
            : (fusingActivations(graph), [:])
        let shapes = try graph.shapes(input: shape)
        guard graph.output != graph.input else { throw GraphError("the graph's output is its input") }
        if containsInstanceNorm(graph) { return try lowerNormalizedBlocks(graph, input: shape, shapes: shapes) }

        // Tensors: the graph's, then temporaries made here (reflect padding).
        var tensorShapes = shapes
        // Entries without a step only extend liveness (the parts of a fused block).
        var steps: [(step: (([ExecutionPlan.Region]) -> ExecutionPlan.Step)?, reads: [Int], writes: Int)] = []
        func temporary(_ shape: NetworkGraph.Shape) -> Int {
            tensorShapes.append(shape)
            return tensorShapes.count - 1
        }
        func add(reads: [Int], writes: Int, _ make: @escaping ([ExecutionPlan.Region]) -> ExecutionPlan.Step) {
            steps.append((make, reads, writes))
        }

        /// The convolution writing graph tensor `tensor` (its fused fake quantisation is that tensor's).
        func conv2d(_ c: NetworkGraph.Convolution, _ input: ExecutionPlan.Region, _ output: ExecutionPlan.Region,
                    padding: NetworkGraph.Padding, tensor: Int) -> ExecutionPlan.Conv2D {
            .init(input: input, output: output, weights: c.weights, bias: c.bias, kernelHeight: c.kernelHeight,
                  kernelWidth: c.kernelWidth, strideY: c.strideY, strideX: c.strideX, padding: padding, groups: c.groups,
                  activation: c.activation, quantize: epilogues[tensor])
        }
        let chains = fusingBlocks ? invertedResidualChains(graph, shapes: shapes) : []
        let chainMembers = Set(chains.flatMap { $0.members })
        let chainEnding = Dictionary(uniqueKeysWithValues: chains.map { ($0.last, $0) })

        // The last step when it is a 1x1 convolution (without a reflect pad): its step, input and
        // output tensors. An add of its output right after it keeps its input live until the add
        // is done, as the blocks' projections above: both backends make such an add the
        // convolution's epilogue (ExecutionPlan.fusableResidualAdd), which must not write over
        // what other threads or workgroups still read.
        var pointwise: (step: Int, input: Int, output: Int)?
        for (index, node) in graph.nodes.enumerated() {
            let out = node.output
            let x = node.inputs.first ?? -1
            if let chain = chainEnding[index] {
                func parts(_ i: Int) -> (NetworkGraph.Convolution, Int, Int) {
                    guard case .convolution(let c) = graph.nodes[i].operation else { preconditionFailure("not a convolution") }
                    return (c, graph.nodes[i].inputs[0], graph.nodes[i].output)
                }
                let expand = chain.expand.map(parts), depthwise = parts(chain.depthwise), project = parts(chain.project)
                let blockInput = expand?.1 ?? depthwise.1
                // Liveness part by part, as the Vulkan backend runs them; the block's input stays
                // live until its output is written (the CPU's fused pass reads one while it
                // writes the other), and so does the projection's input: the Vulkan backend
                // makes the add the projection's epilogue (VulkanBackend.fusedAdd), which must
                // not write over what other workgroups still read. The depthwise input stays live
                // until then too: the Vulkan backend may fuse the depthwise convolution into the
                // projection (VulkanBackend.fusesDepthwiseProjection), reading the one while
                // writing the projection's output or the add's.
                if let expand { steps.append((nil, [blockInput], expand.2)) }
                steps.append((nil, [depthwise.1, blockInput], depthwise.2))
                if chain.add != nil { steps.append((nil, [project.1, blockInput, depthwise.1], project.2)) }
                add(reads: [chain.add == nil ? depthwise.2 : project.2, blockInput, depthwise.1]
                        + (chain.add == nil ? [] : [project.1]),
                    writes: out) { r in
                    .invertedResidual(.init(
                        expand: expand.map { conv2d($0.0, r[$0.1], r[$0.2], padding: .zero, tensor: $0.2) },
                        depthwise: conv2d(depthwise.0, r[depthwise.1], r[depthwise.2], padding: depthwise.0.padding,
                                          tensor: depthwise.2),
                        project: conv2d(project.0, r[project.1], r[project.2], padding: .zero, tensor: project.2),
                        residual: chain.add.map { _ in
                            .init(a: r[project.2], b: r[blockInput], output: r[out], activation: .identity, quantize: epilogues[out])
                        }))
                }
                continue
            }
            if chainMembers.contains(index) { continue }
            switch node.operation {
            case .convolution(let c):
                var source = x
                var padding = c.padding
                if c.paddingMode == .reflect && !c.padding.isZero {
                    let s = tensorShapes[x]!
                    let padded = temporary(.init(channels: s.channels, height: s.height + padding.top + padding.bottom,
                                                 width: s.width + padding.left + padding.right))
                    add(reads: [x], writes: padded) { r in
                        .pad2d(.init(input: r[x], output: r[padded], padding: c.padding, mode: .reflect))
                    }
                    source = padded
                    padding = .zero
                }
                add(reads: [source], writes: out) { [source, padding] r in
                    .conv2d(conv2d(c, r[source], r[out], padding: padding, tensor: out))
                }
                if c.kernelHeight == 1 && c.kernelWidth == 1 && c.strideY == 1 && c.strideX == 1 && c.groups == 1
                    && padding.isZero {
                    pointwise = (steps.count - 1, source, out)
                }
            case .fullyConnected(let weights, let bias, _):
                let s = tensorShapes[x]!
                add(reads: [x], writes: out) { r in
                    .conv2d(.init(input: r[x], output: r[out], weights: weights, bias: bias, kernelHeight: s.height,
                                  kernelWidth: s.width, strideY: 1, strideX: 1, padding: .zero, groups: 1,
                                  activation: .identity))
                }
            case .transposedConvolution(let t):
                add(reads: [x], writes: out) { r in
                    .transposedConv2d(.init(input: r[x], output: r[out], weights: t.weights, bias: t.bias,
                                            activation: t.activation))
                }
            case .activation(let f):
                add(reads: [x], writes: out) { r in
                    .activation(.init(input: r[x], output: r[out], function: f, quantize: epilogues[out]))
                }
            case .add(let f):
                let b = node.inputs[1]
                let projection = pointwise.flatMap { $0.step == steps.count - 1 && [x, b].contains($0.output) ? $0.input : nil }
                add(reads: [x, b] + (projection.map { [$0] } ?? []), writes: out) { r in
                    .add(.init(a: r[x], b: r[b], output: r[out], activation: f, quantize: epilogues[out]))
                }
            case .channelMultiply:
                let scale = node.inputs[1]
                add(reads: [x, scale], writes: out) { r in
                    .channelMultiply(.init(input: r[x], scale: r[scale], output: r[out]))
                }
            case .globalAveragePool:
                add(reads: [x], writes: out) { r in .globalAveragePool(.init(input: r[x], output: r[out])) }
            case .maxPool(let p):
                add(reads: [x], writes: out) { r in
                    .maxPool(.init(input: r[x], output: r[out], kernel: p.kernel, stride: p.stride, padding: p.padding))
                }
            case .softmax:
                add(reads: [x], writes: out) { r in .softmax(.init(input: r[x], output: r[out])) }
            case .concat:
                var start = 0
                for part in node.inputs {
                    let range = start..<start + tensorShapes[part]!.channels
                    add(reads: [part], writes: out) { r in .copy(.init(input: r[part], output: r[out].channels(range))) }
                    start = range.upperBound
                }
            case .resize(let mode, let scale):
                add(reads: [x], writes: out) { r in
                    .resize(.init(input: r[x], output: r[out], mode: mode, scale: scale))
                }
            case .pad(let p, let mode):
                add(reads: [x], writes: out) { r in .pad2d(.init(input: r[x], output: r[out], padding: p, mode: mode)) }
            case .fakeQuantize(let q):
                add(reads: [x], writes: out) { r in .fakeQuant(.init(input: r[x], output: r[out], quantize: q)) }
            case .quantizedInstanceNorm(let n):
                let (gamma, beta) = (node.inputs[1], node.inputs[2])
                add(reads: [x, gamma, beta], writes: out) { r in
                    .quantizedInstanceNorm(.init(input: r[x], gamma: r[gamma], beta: r[beta], output: r[out], norm: n))
                }
            case .instanceNorm:
                preconditionFailure("graphs with instance norm are lowered by lowerNormalizedBlocks")
            }
        }

        // Liveness over steps; the input and output tensors have buffers of their own.
        var first = [Int](repeating: Int.max, count: tensorShapes.count)
        var last = [Int](repeating: -1, count: tensorShapes.count)
        for (index, step) in steps.enumerated() {
            for tensor in step.reads + [step.writes] {
                first[tensor] = min(first[tensor], index)
                last[tensor] = max(last[tensor], index)
            }
        }
        let pooled = tensorShapes.indices.filter {
            $0 != graph.input && $0 != graph.output && $0 != graph.auxiliaryInput?.tensor && last[$0] >= 0
        }
        let placement = BufferPlanner.plan(pooled.map {
            BufferPlanner.Request(size: tensorShapes[$0]!.elementCount, firstStep: first[$0], lastStep: last[$0])
        }, alignment: offsetAlignment)

        let placeholder = ExecutionPlan.Region(buffer: .pool, offset: 0, shape: .init(channels: 0, height: 0, width: 0))
        var regions = [ExecutionPlan.Region](repeating: placeholder, count: tensorShapes.count)
        for (slot, tensor) in pooled.enumerated() {
            regions[tensor] = .init(buffer: .pool, offset: placement.offsets[slot], shape: tensorShapes[tensor]!)
        }
        regions[graph.input] = .init(buffer: .input, offset: 0, shape: tensorShapes[graph.input]!)
        regions[graph.output] = .init(buffer: .result, offset: 0, shape: tensorShapes[graph.output]!)
        if let auxiliary = graph.auxiliaryInput {
            regions[auxiliary.tensor] = .init(buffer: .parameters, offset: 0, shape: auxiliary.shape)
        }

        var bufferFloats: [ExecutionPlan.Buffer: Int] = [
            .input: shape.elementCount, .result: tensorShapes[graph.output]!.elementCount,
        ]
        if placement.poolSize > 0 { bufferFloats[.pool] = placement.poolSize }
        if let auxiliary = graph.auxiliaryInput { bufferFloats[.parameters] = auxiliary.shape.elementCount }
        let outputShape = tensorShapes[graph.output]!
        return ExecutionPlan(
            steps: steps.compactMap { $0.step?(regions) }, bufferFloats: bufferFloats,
            inputShape: .init(shape), output: .result,
            outputShape: .init(outputShape), outputFloats: ExecutionPlan.DenseShape(outputShape).floatCount,
            constants: graph.constants)
    }

    /// The graph with each activation node folded into the (transposed) convolution or add before it, when
    /// that node's output is read by nothing else and its own activation is the identity.
    public static func fusingActivations(_ graph: NetworkGraph) -> NetworkGraph {
        var readers = [Int](repeating: 0, count: graph.tensorCount)
        for node in graph.nodes { for tensor in node.inputs where tensor >= 0 && tensor < graph.tensorCount { readers[tensor] += 1 } }
        var producer: [Int: Int] = [:]
        var nodes = graph.nodes
        var removed = Set<Int>()
        for index in nodes.indices {
            let node = nodes[index]
            producer[node.output] = index
            guard case .activation(let f) = node.operation, let x = node.inputs.first,
                  x != graph.output, readers[x] == 1, let source = producer[x], !removed.contains(source) else { continue }
            switch nodes[source].operation {
            case .convolution(var c) where c.activation == .identity:
                c.activation = f
                nodes[source].operation = .convolution(c)
            case .transposedConvolution(var t) where t.activation == .identity:
                t.activation = f
                nodes[source].operation = .transposedConvolution(t)
            case .add(let a) where a == .identity:
                nodes[source].operation = .add(f)
            case .instanceNorm(var n) where n.activation == .identity:
                n.activation = f
                nodes[source].operation = .instanceNorm(n)
            default:
                continue
            }
            nodes[source].output = node.output
            producer[node.output] = source
            removed.insert(index)
        }
        var fused = graph
        fused.nodes = nodes.indices.filter { !removed.contains($0) }.map { nodes[$0] }
        return fused
    }
}
