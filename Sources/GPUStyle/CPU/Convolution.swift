import CKernels

/// CPU kernel of `ExecutionPlan.Convolution`: the C micro-kernel over bands of output rows.
struct PackedConvolution {
    let weights: ConvolutionWeights
    let packed: [Float]

    init(_ weights: ConvolutionWeights) {
        self.weights = weights
        var packed = [Float](repeating: 0, count: Int(gs_conv_packed_weight_count(
            Int32(weights.outputChannels), Int32(weights.inputChannels), Int32(weights.kernel))))
        gs_conv_pack_weights(weights.values, Int32(weights.outputChannels), Int32(weights.inputChannels),
                             Int32(weights.kernel), &packed)
        self.packed = packed
    }

    func run(_ step: ExecutionPlan.Convolution, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        precondition(step.inputChannels == weights.inputChannels && step.outputShape.channels == weights.outputChannels
                     && step.kernel == weights.kernel, "convolution step does not match its weights")
        let pad = step.input
        let offsets = (0..<step.kernel).map { Int32(pad.columnOffset(tap: $0)) }
        let out = step.outputShape
        offsets.withUnsafeBufferPointer { offsets in
            packed.withUnsafeBufferPointer { packed in
                ParallelFor.ranges(out.height) { rows in
                    gs_conv2d_rows(input, Int64(pad.planeStride), Int64(pad.rowStride), offsets.baseAddress,
                                   Int32(step.inputChannels), Int32(step.kernel), Int32(step.stride),
                                   packed.baseAddress, Int32(out.channels),
                                   output, Int64(out.planeStride), Int32(out.width),
                                   Int32(rows.lowerBound), Int32(rows.upperBound))
                }
            }
        }
    }
}
