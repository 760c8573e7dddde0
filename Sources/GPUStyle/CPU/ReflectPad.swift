import CKernels

/// CPU kernel of `ExecutionPlan.Pad`: optional nearest 2x upsample, reflection padding
/// (numpy's 'reflect': the edge pixel is not repeated), and the split layout for stride 2; the
/// source may be a tile of a larger map (`Pad.Window`).
enum ReflectPad {
    /// Mirrors `index` into `0..<count` (valid for overhangs smaller than `count`).
    @inline(__always)
    static func reflect(_ index: Int, _ count: Int) -> Int { ExecutionPlan.reflect(index, count) }

    /// For each column of a padded row, the source column it copies (in the source buffer's
    /// row), in the order the columns are stored.
    static func sourceColumns(for pad: ExecutionPlan.Pad) -> [Int32] {
        var table = [Int32](repeating: 0, count: pad.paddedWidth)
        for column in 0..<pad.paddedWidth {
            let stored = pad.split ? (column % 2 == 0 ? column / 2 : pad.oddColumnsStart + column / 2) : column
            table[stored] = Int32(pad.sourceIndex(column, along: pad.window.columns))
        }
        return table
    }

    /// `sourceColumns` as runs of copies, every-other-column takes (split) and repeated columns
    /// (upsample), which gs_pad_row moves with whole vectors: a 512-wide row in L1 3x (split) and
    /// 8x (upsample) faster than the per-element gather it replaced. The network's large pads are
    /// memory-bound either way (0.91-0.94 of their time, 6 alternating profiles at 512x512).
    static func runs(for pad: ExecutionPlan.Pad) -> [gs_pad_run] {
        let columns = sourceColumns(for: pad)
        var runs = [gs_pad_run](repeating: gs_pad_run(), count: columns.count)
        let count = Int(gs_pad_runs(columns, Int32(columns.count), &runs))
        return Array(runs.prefix(count))
    }

    static func run(_ pad: ExecutionPlan.Pad, source: UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>) {
        let shape = pad.sourceShape
        let runs = runs(for: pad)
        let rowStride = pad.rowStride, planeStride = pad.planeStride, width = pad.paddedWidth
        let rows = shape.channels * pad.paddedHeight
        runs.withUnsafeBufferPointer { runs in
            ParallelFor.ranges(rows, grain: 64) { range in
                for index in range {
                    let channel = index / pad.paddedHeight, row = index % pad.paddedHeight
                    let sourceRow = pad.sourceIndex(row, along: pad.window.rows)
                    let src = source + channel * shape.planeStride + sourceRow * shape.width
                    let dst = destination + channel * planeStride + row * rowStride
                    gs_pad_row(src, runs.baseAddress, Int32(runs.count), dst)
                    // Slack columns are read by whole-vector loads; keep them finite.
                    for column in width..<rowStride { dst[column] = 0 }
                }
            }
        }
    }
}
