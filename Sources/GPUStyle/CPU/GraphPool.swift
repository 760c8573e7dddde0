import CKernels

/// The `globalAveragePool` and `maxPool` steps, one channel plane per task.
enum GraphPool {
    static func run(_ step: ExecutionPlan.GlobalAveragePool, _ storage: GraphStorage) {
        let input = step.input
        precondition(step.output.shape == .init(channels: input.channels, height: 1, width: 1),
                     "global average pool: the output is [C][1][1]")
        let x = storage.pointer(input), y = storage.pointer(step.output)
        let plane = input.planeStride
        ParallelFor.ranges(input.channels, grain: max(1, (1 << 16) / max(plane, 1))) { channels in
            // The sum of x - x[0] (short float runs combined in double, the instance norm's
            // kernel): plain float sums of a nearly constant 1024x1024 plane around 1000 drifted
            // by 0.004 even in 512-term runs; shifted, the terms are small and the sums exact.
            for c in channels {
                let base = x + c * plane
                var sum = 0.0, squares = 0.0
                gs_instance_norm_moments(base, Int64(plane), base[0], &sum, &squares)
                y[c] = Float(Double(base[0]) + sum / Double(plane))
            }
        }
    }

    static func run(_ step: ExecutionPlan.MaxPool, _ storage: GraphStorage) {
        let input = step.input, output = step.output
        precondition(input.channels == output.channels, "max pool: channel counts differ")
        let x = storage.pointer(input), y = storage.pointer(output)
        let rows = output.height
        ParallelFor.ranges(output.channels * rows, grain: max(1, (1 << 14) / max(output.width * step.kernel * step.kernel, 1))) { range in
            forEachRowRun(range, rows: rows) { c, rows in
                gs_max_pool_rows(x + c * input.planeStride, Int32(input.height), Int32(input.width), y + c * output.planeStride,
                                 Int32(output.width), Int32(step.kernel), Int32(step.stride), Int32(step.padding.top),
                                 Int32(step.padding.left), Int32(rows.lowerBound), Int32(rows.upperBound))
            }
        }
    }
}

/// Splits a range of (channel, row) items, `rows` per channel, into runs of rows of one channel.
func forEachRowRun(_ range: Range<Int>, rows: Int, _ body: (_ channel: Int, _ rows: Range<Int>) -> Void) {
    var start = range.lowerBound
    while start < range.upperBound {
        let channel = start / rows
        let end = min(range.upperBound, (channel + 1) * rows)
        body(channel, (start - channel * rows)..<(end - channel * rows))
        start = end
    }
}
