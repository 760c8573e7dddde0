import CKernels

/// The `globalAveragePool` and `maxPool` steps (CKernels/pool.c), one channel plane per task.
enum GraphPool {
    static func run(_ step: ExecutionPlan.GlobalAveragePool, _ storage: GraphStorage) {
        let input = step.input
        precondition(step.output.shape == .init(channels: input.channels, height: 1, width: 1),
                     "global average pool: the output is [C][1][1]")
        let x = storage.pointer(input), y = storage.pointer(step.output)
        let plane = input.planeStride
        ParallelFor.ranges(input.channels, grain: max(1, (1 << 16) / max(plane, 1))) { channels in
            for c in channels { y[c] = Float(gs_plane_sum(x + c * plane, Int64(plane)) / Double(plane)) }
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
