import CKernels

/// The `softmax` step (CKernels/softmax.c) over ranges of pixels on all cores. A map of few
/// pixels runs on one core: the recogniser's 6906 classes at 40 steps split into 8-pixel ranges
/// over both cores took 1.68 ms against 0.17 on one (`gpustyle profile --network text-rec`, AMD
/// EPYC Zen 4), the cores writing the two halves of the same cache lines in every channel's row.
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
