import CKernels

/// `ExecutionPlan.InvertedResidual` on the CPU in one pass (`CKernels/inverted_residual_body.inc`):
/// each thread takes a band of output rows and walks it in strips small enough that the
/// strip's expanded and filtered rows stay in the core's L2 cache.
enum CPUInvertedResidual {
    struct Tuning {
        /// Bytes of one strip's expanded and filtered rows: half of this machine's 2 MB L2 per
        /// core, leaving room for the weights and the input and output rows streaming through.
        var stripBytes = 1 << 20
        /// Fused only when every thread gets at least this many output rows. Each band
        /// recomputes the expanded rows its first strip shares with the band above (2 rows for a
        /// 3x3 stride-1 depthwise); on MobileNetV2's 14x14 and 7x7 maps fusing measured no
        /// faster (classify, 10 alternating rounds: fused there / not 1.016).
        var minimumRowsPerThread = 14
        /// Output rows per strip instead of what `stripBytes` allows (tests walk many strips).
        var stripRows: Int?
    }

    /// Runs the block fused and returns true, or returns false when the parts should run one
    /// by one (small maps; 1x1 convolutions whose weights the kernel packs another way).
    static func run(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights, constants: ModelConstants,
                    _ graph: GraphStorage, tuning: Tuning) -> Bool {
        let rows = block.depthwise.output.height
        let threads = min(ParallelFor.workers, ParallelFor.workerLimit)
        let band = (rows + threads - 1) / threads
        guard band >= tuning.minimumRowsPerThread else { return false }
        let expand = block.expand.map { weights.convolution($0, constants: constants) }
        let depthwise = weights.convolution(block.depthwise, constants: constants)
        let project = weights.convolution(block.project, constants: constants)
        guard expand?.kind ?? 0 == 0, project.kind == 0, depthwise.kind == 1 else { return false }

        var p = gs_inverted_residual_params()
        if let expand, let step = block.expand {
            p.expand = expand.kernelParameters(step)
            p.has_expand = 1
        }
        p.depthwise = depthwise.kernelParameters(block.depthwise)
        p.project = project.kernelParameters(block.project)
        p.strip_rows = tuning.stripRows.map { Int32(min($0, band)) }
            ?? gs_inverted_residual_strip_rows(&p, Int64(tuning.stripBytes), Int32(band))
        let params = p
        let input = graph.pointer(block.input), output = graph.pointer(block.output)
        let residual = block.residual.map { UnsafePointer(graph.pointer($0.b)) }
        let expandWeights = expand.map { UnsafePointer($0.prepared.baseAddress!) }
        ParallelFor.ranges(rows, grain: band) { range in
            var local = params
            gs_inverted_residual_run(&local, input, expandWeights, depthwise.prepared.baseAddress!,
                                     project.prepared.baseAddress!, residual, output,
                                     Int64(range.lowerBound), Int64(range.upperBound))
        }
        return true
    }
}
