/// The `copy` and `channelMultiply` steps, plain Swift loops: both stream memory once, and
/// at -Ounchecked the multiply loop is vectorised; a C kernel would not be faster.
enum GraphCopy {
    static func run(_ step: ExecutionPlan.Copy, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "copy: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output)
        if x == y { return }
        ParallelFor.ranges(step.output.floatCount, grain: 1 << 16) { range in
            (y + range.lowerBound).update(from: x + range.lowerBound, count: range.count)
        }
    }

    static func run(_ step: ExecutionPlan.ChannelMultiply, _ storage: GraphStorage) {
        let shape = step.output.shape
        precondition(step.input.shape == shape && step.scale.shape == .init(channels: shape.channels, height: 1, width: 1),
                     "channel multiply: a [C][H][W] input and a [C][1][1] scale")
        let x = storage.pointer(step.input), scale = storage.pointer(step.scale), y = storage.pointer(step.output)
        let plane = shape.height * shape.width
        forEachPlanePiece(channels: shape.channels, plane: plane) { channel, floats in
            let s = scale[channel], base = channel * plane
            for i in floats { y[base + i] = x[base + i] * s }
        }
    }
}
