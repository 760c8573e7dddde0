import CKernels

/// The `softmax` step (CKernels/softmax.c) on all cores: split by ranges of pixels, or, on a map
/// of too few pixels for that, by ranges of channels.
///
/// Few pixels: the recogniser's 6906 classes at 40 steps split into 8-pixel ranges over both
/// cores took 1.68 ms against 0.17 on one (`gpustyle profile --network text-rec`, AMD EPYC Zen 4),
/// the cores writing the two halves of the same cache lines in every channel's row. Split by
/// channels instead, each part takes its own per-pixel maximum and sum, and a second pass scales
/// each part by its share of the whole (gs_softmax_channels_exp and _scale): the recogniser's
/// 6906x40, two cores (AMD EPYC Zen 4, the profiles at nice -20 on a machine loaded by other
/// work, 6 alternating rounds that got both cores) 0.149-0.203 -> 0.085-0.112 ms.
enum GraphSoftmax {
    /// Elements below which a map of few pixels stays on one core: two jobs on the pool cost a
    /// few microseconds (the digit classifier's 10 classes at one pixel).
    static let channelSplitMinimum = 1 << 14

    static func run(_ step: ExecutionPlan.Softmax, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "softmax: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output)
        let channels = step.output.channels, plane = step.output.planeStride
        let grain = max(256, (1 << 14) / max(channels, 1))
        let parts = min(ParallelFor.workers, ParallelFor.workerLimit, channels)
        if plane < 2 * grain, parts > 1, channels * plane >= channelSplitMinimum {
            byChannels(x, y, channels: channels, plane: plane, parts: parts)
            return
        }
        ParallelFor.ranges(plane, grain: grain) { pixels in
            gs_softmax_pixels(x, Int32(channels), Int64(plane), Int64(pixels.lowerBound), Int64(pixels.upperBound), y)
        }
    }

    /// `parts` ranges of channels, each one job's chunk: their maxima and sums, then the scaling.
    static func byChannels(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, channels: Int, plane: Int,
                           parts: Int) {
        var scratch = [Float](repeating: 0, count: 2 * parts * plane)
        scratch.withUnsafeMutableBufferPointer { scratch in
            let maxima = scratch.baseAddress!, sums = maxima + parts * plane
            let first = { (part: Int) in Int64(channels * part / parts) }
            ParallelFor.ranges(parts) { range in
                for part in range {
                    gs_softmax_channels_exp(x, Int64(plane), first(part), first(part + 1), maxima + part * plane,
                                            sums + part * plane, y)
                }
            }
            ParallelFor.ranges(parts) { range in
                for part in range {
                    gs_softmax_channels_scale(y, Int64(plane), first(part), first(part + 1), maxima, sums, Int32(parts),
                                              Int32(part))
                }
            }
        }
    }
}
