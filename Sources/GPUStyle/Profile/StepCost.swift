/// Work and traffic of one plan step, computed from its shapes (not measured).
public struct StepCost: Sendable {
    /// "pad", "pad+upsample", "conv 9x9", "conv 3x3/2", "instance_norm stats", "instance_norm apply".
    public let kind: String
    /// Network layer name ("res.2.0"), or "input" for the pad that feeds layer 0 etc.
    public let layer: String
    /// Floating-point operations: 2 x the exact MACs for convolutions, 0 for the other steps
    /// (their few flops per element are negligible next to their memory traffic).
    public let flops: Double
    public let bytesRead: Double
    public let bytesWritten: Double
    public var bytes: Double { bytesRead + bytesWritten }
    /// Flops per byte moved.
    public var intensity: Double { bytes > 0 ? flops / bytes : 0 }
}

extension ExecutionPlan.Step {
    /// Flops and bytes read/written by this step (valid elements only, 4 bytes per float;
    /// weights count once per step).
    public var cost: StepCost {
        func layerName(_ index: Int) -> String {
            StyleNetwork.layers.indices.contains(index) ? StyleNetwork.layers[index].name : "layer \(index)"
        }
        func elements(_ s: ExecutionPlan.DenseShape) -> Double { Double(s.channels * s.height * s.width) }
        switch self {
        case .pad(let pad):
            let written = Double(pad.sourceShape.channels * pad.paddedHeight * pad.paddedWidth)
            return StepCost(kind: pad.upsample ? "pad+upsample" : "pad", layer: "", flops: 0,
                            bytesRead: 4 * elements(pad.sourceShape), bytesWritten: 4 * written)
        case .convolution(let conv):
            let out = conv.outputShape
            let macs = Double(out.channels * out.height * out.width) * Double(conv.inputChannels * conv.kernel * conv.kernel)
            let input = Double(conv.inputChannels * conv.input.paddedHeight * conv.input.paddedWidth)
            let weights = Double(out.channels * conv.inputChannels * conv.kernel * conv.kernel)
            let kind = "conv \(conv.kernel)x\(conv.kernel)" + (conv.stride == 1 ? "" : "/\(conv.stride)")
            return StepCost(kind: kind, layer: layerName(conv.layer), flops: 2 * macs,
                            bytesRead: 4 * (input + weights), bytesWritten: 4 * elements(out))
        case .fusedConvolution(let fused):
            // The map is read once (normalised and padded on the way in); the convolution's work.
            let conv = ExecutionPlan.Step.convolution(fused.convolution).cost
            let input = Double(fused.convolution.inputChannels * fused.pad.paddedHeight * fused.pad.paddedWidth)
            return StepCost(kind: conv.kind, layer: conv.layer, flops: conv.flops,
                            bytesRead: conv.bytesRead - 4 * input + 4 * elements(fused.pad.sourceShape),
                            bytesWritten: conv.bytesWritten)
        case .instanceNormStatistics(let stats):
            return StepCost(kind: "instance_norm stats", layer: layerName(stats.layer), flops: 0,
                            bytesRead: 4 * elements(stats.shape), bytesWritten: 4 * 2 * Double(stats.shape.channels))
        case .instanceNormApply(let apply):
            let n = elements(apply.shape)
            return StepCost(kind: "instance_norm apply", layer: layerName(apply.layer), flops: 0,
                            bytesRead: 4 * n * (apply.residual == nil ? 1 : 2), bytesWritten: 4 * n)
        case .instanceNormMoments(let moments):
            return StepCost(kind: "instance_norm moments", layer: layerName(moments.layer), flops: 0,
                            bytesRead: 4 * elements(moments.shape), bytesWritten: 4 * Double(moments.floatCount))
        case .conv2d(let conv):
            let weights = Double(conv.weightCount)
            let groups = conv.groups > 1 && !conv.isDepthwise ? " g\(conv.groups)" : ""
            let kind = "\(opName) \(conv.kernelHeight)x\(conv.kernelWidth)" + (conv.strideY == 1 ? "" : "/\(conv.strideY)") + groups
            return StepCost(kind: kind, layer: conv.shapeLabel, flops: 2 * Double(conv.multiplyAdds),
                            bytesRead: 4 * (Double(conv.input.floatCount) + weights), bytesWritten: 4 * Double(conv.output.floatCount))
        case .invertedResidual(let block):
            // The fused pass reads the block's input (twice with the residual) and the weights
            // and writes its output; the convolutions' work is the block's.
            let convolutions = [block.expand, block.depthwise, block.project].compactMap { $0 }
            let weights = Double(convolutions.reduce(0) { $0 + $1.weightCount })
            let dw = block.depthwise
            return StepCost(kind: "\(opName) \(dw.kernelHeight)x\(dw.kernelWidth)" + (dw.strideY == 1 ? "" : "/\(dw.strideY)"),
                            layer: "\(block.input.channels)->\(dw.input.channels)->\(block.output.channels) "
                                + "\(block.output.height)x\(block.output.width)", flops: 2 * Double(convolutions.reduce(0) { $0 + $1.multiplyAdds }),
                            bytesRead: 4 * (weights + Double(block.input.floatCount) * (block.residual == nil ? 1 : 2)),
                            bytesWritten: 4 * Double(block.output.floatCount))
        default:
            let regions = graphRegions!
            let read = regions.reads.reduce(0) { $0 + Double($1.floatCount) }
            var kind = opName
            switch self {
            case .activation(let s): kind += " \(s.function.kind)"
            case .add(let s) where s.activation.kind != .identity: kind += " \(s.activation.kind)"
            default: break
            }
            return StepCost(kind: kind, layer: "\(regions.writes.shape)", flops: 0, bytesRead: 4 * read,
                            bytesWritten: 4 * Double(regions.writes.floatCount))
        }
    }
}

extension ExecutionPlan.Step {
    /// `cost` with the graph tensors in `halfBuffers` (fp16 storage, `NetworkBackend.lastRunHalfBuffers`)
    /// counted at 2 bytes per element. The style network's steps keep 4 bytes per element.
    public func cost(halfBuffers: Set<ExecutionPlan.Buffer>) -> StepCost {
        let full = cost
        guard !halfBuffers.isEmpty, let regions = graphRegions else { return full }
        func saved(_ region: ExecutionPlan.Region) -> Double { halfBuffers.contains(region.buffer) ? 2 * Double(region.floatCount) : 0 }
        return StepCost(kind: full.kind, layer: full.layer, flops: full.flops,
                        bytesRead: full.bytesRead - regions.reads.reduce(0) { $0 + saved($1) },
                        bytesWritten: full.bytesWritten - saved(regions.writes))
    }
}

extension ExecutionPlan.Conv2D {
    /// "16->32 136x240" (input -> output channels at the output's size), with the fused
    /// activation when there is one: the layer column of graph convolutions' profile rows.
    var shapeLabel: String {
        "\(input.channels)->\(output.channels) \(output.height)x\(output.width)"
            + (activation.kind == .identity ? "" : " +\(activation.kind)")
    }
}
