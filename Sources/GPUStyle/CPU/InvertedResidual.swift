import CKernels

/// `ExecutionPlan.InvertedResidual` on the CPU in one pass (`CKernels/inverted_residual_body.inc`).
/// Large maps are split by rows: each thread takes a band of output rows and walks it in strips
/// small enough that the strip's expanded and filtered rows stay in the core's L2 cache. Small
/// maps (bands under `minimumRowsPerThread`) are split by the expanded channels: each thread
/// expands, filters and projects its own channels over the whole map, so the expanded tensor
/// never moves between cores, and the projections' partial sums are added at the end.
enum CPUInvertedResidual {
    struct Tuning {
        /// Bytes of one strip's expanded and filtered rows: half of this machine's 2 MB L2 per
        /// core, leaving room for the weights and the input and output rows streaming through.
        var stripBytes = 1 << 20
        /// Split by rows only when every thread gets at least this many output rows. Each band
        /// recomputes the expanded rows its first strip shares with the band above (2 rows for a
        /// 3x3 stride-1 depthwise); on MobileNetV2's 14x14 and 7x7 maps rows measured no faster
        /// than the parts one by one (classify, 10 alternating rounds: 1.016). Channels instead
        /// of rows for bands up to 28 rows (4 alternating profiles, medians per step): 28x28
        /// outputs 0.99-1.00, 56x56 outputs 1.06-1.24 (each thread's expanded channels no longer
        /// fit its L2).
        var minimumRowsPerThread = 14
        /// Output rows per strip instead of what `stripBytes` allows (tests walk many strips).
        var stripRows: Int?
        /// Channel parts for small maps (nil: one per thread; 0: run the parts one by one).
        var channelParts: Int?
        /// Split by channels only from this many output pixels (all of classify's small maps:
        /// its blocks on 14x14 maps took 0.67-0.73 of the parts' time, those on 7x7 maps
        /// 0.85-0.93 with the small-map projection; 4 alternating profiles of 40 runs, medians
        /// per step).
        var minimumChannelSplitPixels = 0
    }

    /// The packings the fused kernel's 1x1 convolutions use (`gs_conv2d_kind`): GEMM on any
    /// map, and for channel parts' projections onto maps under `smallMapPixels` the small-map
    /// kernel, whose lanes are all output channels (a 7x7 map fills 49 of a GEMM's 64 pixel
    /// lanes). On 14x14 maps the GEMM was faster: the small-map kernel took 1.06-1.14 of its
    /// time there (same profiles as `minimumChannelSplitPixels`), 0.85-0.93 of the parts' on 7x7.
    private static let gemm: Int32 = 0, smallMap: Int32 = 3
    static let smallMapPixels = 100

    /// Runs the block fused and returns true, or returns false when the parts should run one
    /// by one.
    static func run(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights, constants: ModelConstants,
                    _ graph: GraphStorage, tuning: Tuning) -> Bool {
        let rows = block.depthwise.output.height
        let threads = min(ParallelFor.workers, ParallelFor.workerLimit)
        let band = (rows + threads - 1) / threads
        let byRows = band >= tuning.minimumRowsPerThread || threads == 1 && tuning.channelParts == nil
        let parts = byRows ? 0 : tuning.channelParts ?? threads
        // Channel parts add partial sums, so the projection must be linear.
        guard byRows || parts >= 2 && block.project.activation == .identity
                && block.output.height * block.output.width >= tuning.minimumChannelSplitPixels else { return false }

        let expand = block.expand.map { weights.convolution($0, constants: constants, kind: gemm) }
        let depthwise = weights.convolution(block.depthwise, constants: constants)
        let projectKind = !byRows && block.project.output.height * block.project.output.width < smallMapPixels ? smallMap : gemm
        let project = weights.convolution(block.project, constants: constants, kind: projectKind)
        guard depthwise.kind == 1 else { return false }

        var p = gs_inverted_residual_params()
        if let expand, let step = block.expand {
            p.expand = expand.kernelParameters(step)
            p.has_expand = 1
        }
        p.depthwise = depthwise.kernelParameters(block.depthwise)
        p.project = project.kernelParameters(block.project)
        p.channel_parts = Int32(parts)
        p.project_kind = projectKind
        if byRows {
            p.strip_rows = tuning.stripRows.map { Int32(min($0, band)) }
                ?? gs_inverted_residual_strip_rows(&p, Int64(tuning.stripBytes), Int32(band))
        }
        let params = p
        let input = graph.pointer(block.input), output = graph.pointer(block.output)
        let residual = block.residual.map { UnsafePointer(graph.pointer($0.b)) }
        let expandWeights = expand.map { UnsafePointer($0.prepared.baseAddress!) }
        // The channel parts' partial sums (none when split by rows).
        let partialCount = Int(gs_inverted_residual_partials(&p))
        let partials = partialCount > 0 ? UnsafeMutablePointer<Float>.allocate(capacity: partialCount) : nil
        defer { partials?.deallocate() }
        ParallelFor.ranges(byRows ? rows : parts, grain: byRows ? band : 1) { range in
            var local = params
            gs_inverted_residual_run(&local, input, expandWeights, depthwise.prepared.baseAddress!,
                                     project.prepared.baseAddress!, residual, output, partials,
                                     Int64(range.lowerBound), Int64(range.upperBound))
        }
        if let partials {
            ParallelFor.ranges(block.output.floatCount, grain: 1 << 14) { range in
                var local = params
                gs_inverted_residual_reduce(&local, output, partials, residual, Int64(range.lowerBound),
                                            Int64(range.upperBound))
            }
        }
        return true
    }
}
