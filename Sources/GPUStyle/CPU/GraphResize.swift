import CKernels

/// The `resize` step (CKernels/resize.c), rows of every channel on all cores.
enum GraphResize {
    static func run(_ step: ExecutionPlan.Resize, _ storage: GraphStorage) {
        let input = step.input, output = step.output
        precondition(output.shape == .init(channels: input.channels, height: input.height * step.scale,
                                           width: input.width * step.scale), "resize: the output is the input times the scale")
        let x = storage.pointer(input), y = storage.pointer(output)
        let rows = output.height
        ParallelFor.ranges(output.channels * rows, grain: max(1, (1 << 14) / max(output.width, 1))) { range in
            forEachRowRun(range, rows: rows) { c, rows in
                gs_resize_rows(x + c * input.planeStride, Int32(input.height), Int32(input.width), Int32(step.scale),
                               Int32(step.mode.rawValue), y + c * output.planeStride, Int32(rows.lowerBound), Int32(rows.upperBound))
            }
        }
    }
}
