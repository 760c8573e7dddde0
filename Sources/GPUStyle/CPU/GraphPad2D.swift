import CKernels

/// The `pad2d` step (CKernels/pad2d.c), rows of every channel on all cores.
enum GraphPad2D {
    static func run(_ step: ExecutionPlan.Pad2D, _ storage: GraphStorage) {
        let input = step.input, output = step.output, p = step.padding
        precondition(output.shape == .init(channels: input.channels, height: input.height + p.top + p.bottom,
                                           width: input.width + p.left + p.right), "pad2d: the output is the padded input")
        precondition(step.mode == .zero || (max(p.top, p.bottom) < input.height && max(p.left, p.right) < input.width),
                     "pad2d: reflection padding must be smaller than the side")
        let x = storage.pointer(input), y = storage.pointer(output)
        let rows = output.height
        ParallelFor.ranges(output.channels * rows, grain: max(1, (1 << 14) / max(output.width, 1))) { range in
            forEachRowRun(range, rows: rows) { c, rows in
                gs_pad2d_rows(x + c * input.planeStride, Int32(input.height), Int32(input.width), y + c * output.planeStride,
                              Int32(output.width), Int32(p.top), Int32(p.left), step.mode == .reflect ? 1 : 0,
                              Int32(rows.lowerBound), Int32(rows.upperBound))
            }
        }
    }
}
