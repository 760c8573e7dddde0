import CKernels

/// The `softmax` step (CKernels/softmax.c) over ranges of pixels on all cores.
enum GraphSoftmax {
    static func run(_ step: ExecutionPlan.Softmax, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "softmax: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output)
        let channels = step.output.channels, plane = step.output.planeStride
        ParallelFor.ranges(plane, grain: max(256, (1 << 14) / max(channels, 1))) { pixels in
            gs_softmax_pixels(x, Int32(channels), Int64(plane), Int64(pixels.lowerBound), Int64(pixels.upperBound), y)
        }
    }
}
