import CKernels

/// `ExecutionPlan.InvertedResidual` on the CPU in one pass (`CKernels/inverted_residual_body.inc`).
/// Large maps are split by rows: each thread takes a band of output rows and walks it in strips
/// small enough that the strip's expanded and filtered rows stay in the core's L2 cache. Small
/// maps are split by the expanded channels: each thread expands, filters and projects its own
/// channels over the whole map, so the expanded tensor never moves between cores, and the
/// projections' partial sums are added at the end. Maps up to `blockedPixels` do that in the
/// channel-blocked layout (`CKernels/inverted_residual_blocked_body.inc`), the others between
/// in NCHW. Row strips are channel-blocked too when the block has an expansion.
///
/// Under `ConvolutionPrecision.bf16` the channel-blocked passes of blocks with an expansion run
/// their 1x1 convolutions in bf16 (`gs_inverted_residual_run_bf16`: inputs and weights rounded to
/// bf16, fp32 sums, the depthwise convolution in fp32); the other blocks stay fp32.
enum CPUInvertedResidual {
    struct Tuning {
        /// Bytes of one strip's expanded and filtered rows: half of the core's L2 cache
        /// (`defaultStripBytes`), leaving room for the weights and the input and output rows
        /// streaming through.
        var stripBytes = Tuning.defaultStripBytes
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
        /// Output maps of up to this many pixels run channel-blocked, on any number of threads.
        /// Classify, 2 threads, medians of 6 alternating profiles against the NCHW passes: blocks
        /// with 14x14 outputs 0.71-0.75 of the time, 7x7 0.63-0.69, 28x28 0.87-0.99; with 56x56
        /// outputs 1.18-1.35 (a part's filtered channels, 1.2 MB, crowd its L2).
        var blockedPixels = 784
        /// Whether blocks without an expansion run channel-blocked too (tests); otherwise (the
        /// default) they run as their parts, a depthwise step and a 1x1 GEMM. Without an expansion
        /// a channel part's projection sums only its own few filtered channels (the recogniser's
        /// 48->48->96 at 6x80: 24 per part on two threads) and adds the parts' partial sums after;
        /// the face mesh's 64->64->64 at 24x24 took 0.17 ms that way, 0.07 as its parts.
        /// AMD EPYC Zen 4, `gpustyle profile --device cpu` of the two builds alternating (load 5-7),
        /// medians of per-round ratios parts / channel-blocked over the blocks without an
        /// expansion: the face mesh on two cores 0.445 (6 rounds, 0.435-0.456; 1.25 -> 0.55 ms; all
        /// steps 0.71), on one core 0.57 (4 rounds; all steps 0.80); the recogniser on two cores
        /// 0.94 (4 rounds, 0.93-0.95; all steps 1.00), and earlier on one core 0.67-0.85 per block;
        /// the text detector's two at 17x30 0.77 (4 rounds, 0.77-0.78; 0.32 -> 0.25 ms); the
        /// faces' one (128->128->256 at 16x16) 1.00. Classify has none on a small map.
        /// (Until the depthwise kernel's fix, `Conv2DTests.testCPUWritesNothingOutsideTheOutputOnEveryISA`,
        /// the parts had put the mesh 6.2e-3 from the fused kernel and Vulkan: its 3x3 maps'
        /// depthwise steps wrote 2 floats past their output into a tensor another branch read.)
        var blockedWithoutExpansion = false
        /// Blocks split by rows with an expansion hold their strips channel-blocked too.
        /// Classify, 2 threads, 10 alternating profiles against NCHW strips: the 112x112 -> 56x56
        /// block 0.82 of the time, the 56x56 one 0.91.
        var blockedRows = true

        /// Half of the L2 the system reports (1 MiB when it reports none: half of the 2 MB per core
        /// of the Intel Xeon this was first tuned on). On AMD EPYC Zen 4 (1 MiB L2 per core) the
        /// fixed 1 MiB filled the whole L2; with half of it, classify's steps (the two binaries'
        /// `gpustyle profile` alternating, 2026-11-30, load 6-7), one core (6 rounds): 32->32->16
        /// at 112x112 0.91, 16->96->24 0.96, 24->144->24 0.92, all steps 0.98; two threads (8
        /// rounds): 0.93, 0.91, 0.94, all steps 0.97. A quarter of the L2 measured no better.
        static let defaultStripBytes: Int = {
            let level2 = Int(gs_level2_cache_bytes())
            return level2 > 0 ? level2 / 2 : 1 << 20
        }()
    }

    /// The packings the fused kernels' convolutions use (`gs_conv2d_prepare_kind`): GEMM blocks
    /// for the NCHW passes; blocks of 32 output channels (the small-map kernel's) and depthwise
    /// taps 16 channels side by side for the channel-blocked one.
    private static let gemm: Int32 = 0, smallMap: Int32 = 3, blockedDepthwise: Int32 = 4

    /// Runs the block fused and returns true, or returns false when the parts should run one
    /// by one.
    static func run(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights, constants: ModelConstants,
                    _ graph: GraphStorage, tuning: Tuning) -> Bool {
        let threads = min(ParallelFor.workers, ParallelFor.workerLimit)
        if block.isQuantized { return runQuantized(block, weights: weights, constants: constants, graph, tuning: tuning, threads: threads) }
        if block.output.height * block.output.width <= tuning.blockedPixels {
            if tuning.channelParts == 0 || block.expand == nil && !tuning.blockedWithoutExpansion { return false }
            return runBlocked(block, weights: weights, constants: constants, graph, parts: tuning.channelParts ?? threads)
        }
        let rows = block.depthwise.output.height
        let band = (rows + threads - 1) / threads
        let byRows = band >= tuning.minimumRowsPerThread || threads == 1 && tuning.channelParts == nil
        let parts = byRows ? 0 : tuning.channelParts ?? threads
        // Channel parts add partial sums, so the projection must be linear.
        guard byRows || parts >= 2 && block.project.activation == .identity else { return false }
        // (After the layout is set: the blocked one sizes strips by its rounded channels.)
        func setStripRows(_ p: inout gs_inverted_residual_params) {
            p.strip_rows = tuning.stripRows.map { Int32(min($0, band)) }
                ?? gs_inverted_residual_strip_rows(&p, Int64(tuning.stripBytes), Int32(band))
        }
        if byRows && tuning.blockedRows && block.expand != nil && fitsBlocked(block) {
            return execute(block, weights: weights, constants: constants, graph,
                           kinds: (expand: smallMap, depthwise: blockedDepthwise, project: smallMap),
                           tasks: rows, grain: band) { p in
                p.channel_parts = 0
                p.blocked = 1
                setStripRows(&p)
            }
        }

        return execute(block, weights: weights, constants: constants, graph,
                       kinds: (expand: gemm, depthwise: nil, project: gemm),
                       tasks: byRows ? rows : parts, grain: byRows ? band : 1) { p in
            p.channel_parts = Int32(parts)
            if byRows { setStripRows(&p) }
        }
    }

    /// A block with fake quantisations in its epilogues (an int8 QDQ model's) runs fused only where
    /// every value comes out bit for bit as the parts one by one make it, since a quantised network
    /// amplifies a last-bit difference into a quantum: split by rows in NCHW, whose 1x1
    /// convolutions are the GEMM micro-kernel (bias added after the sum) and whose depthwise one
    /// is the depthwise plane kernel, which is what the parts run when `gs_conv2d_kind` picks GEMM
    /// and depthwise for them. Not channel parts (their partial sums add in another order), not
    /// the channel-blocked kernels (bias first), not a 1x1 convolution the parts would run as
    /// the small-map kernel; those blocks run as their parts.
    private static func runQuantized(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights,
                                     constants: ModelConstants, _ graph: GraphStorage, tuning: Tuning,
                                     threads: Int) -> Bool {
        guard tuning.channelParts != 0 else { return false }
        let rows = block.depthwise.output.height
        let band = (rows + threads - 1) / threads
        guard band >= tuning.minimumRowsPerThread || threads == 1 else { return false }
        func kind(_ step: ExecutionPlan.Conv2D) -> Int32 {
            var p = CPUConv2D.parameters(step)
            return gs_conv2d_kind(&p)
        }
        guard block.expand.map({ kind($0) == gemm }) ?? true, kind(block.depthwise) == 1, kind(block.project) == gemm else {
            return false
        }
        return execute(block, weights: weights, constants: constants, graph,
                       kinds: (expand: gemm, depthwise: nil, project: gemm), tasks: rows, grain: band) { p in
            p.channel_parts = 0
            p.strip_rows = tuning.stripRows.map { Int32(min($0, band)) }
                ?? gs_inverted_residual_strip_rows(&p, Int64(tuning.stripBytes), Int32(band))
        }
    }

    /// The channel-blocked pass in `parts` parts (1: no partial sums), or false when the block
    /// does not fit it (a depthwise kernel over `GS_BLOCKED_MAX_TAPS` taps, or an activation after
    /// a projection split into parts).
    private static func runBlocked(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights,
                                   constants: ModelConstants, _ graph: GraphStorage, parts: Int) -> Bool {
        guard fitsBlocked(block), parts == 1 || block.project.activation == .identity else { return false }
        return execute(block, weights: weights, constants: constants, graph,
                       kinds: (expand: smallMap, depthwise: blockedDepthwise, project: smallMap),
                       tasks: parts, grain: 1) { p in
            p.channel_parts = Int32(parts)
            p.blocked = 1
        }
    }

    /// Whether the channel-blocked kernels take the block's depthwise convolution: a true depthwise
    /// one of at most `GS_BLOCKED_MAX_TAPS` taps.
    private static func fitsBlocked(_ block: ExecutionPlan.InvertedResidual) -> Bool {
        block.depthwise.isDepthwise && block.depthwise.kernelHeight * block.depthwise.kernelWidth <= Int(GS_BLOCKED_MAX_TAPS)
    }

    /// Packs the block's convolutions as `kinds` (a nil depthwise kind: gs_conv2d_kind's, which
    /// must be the depthwise kernel), fills the kernel's parameters (`configure` sets how the work
    /// is split), runs `tasks` tasks on all cores and adds the partial sums.
    private static func execute(_ block: ExecutionPlan.InvertedResidual, weights: CPUGraphWeights,
                                constants: ModelConstants, _ graph: GraphStorage,
                                kinds: (expand: Int32, depthwise: Int32?, project: Int32), tasks: Int, grain: Int,
                                configure: (inout gs_inverted_residual_params) -> Void) -> Bool {
        let expand = block.expand.map { weights.convolution($0, constants: constants, kind: kinds.expand) }
        let depthwise = weights.convolution(block.depthwise, constants: constants, kind: kinds.depthwise)
        let project = weights.convolution(block.project, constants: constants, kind: kinds.project)
        guard kinds.depthwise != nil || depthwise.kind == 1 else { return false }
        var p = gs_inverted_residual_params()
        if let expand, let step = block.expand {
            p.expand = expand.kernelParameters(step)
            p.has_expand = 1
        }
        p.depthwise = depthwise.kernelParameters(block.depthwise)
        p.project = project.kernelParameters(block.project)
        if let q = block.residual?.quantize { (p.project.residual_scale, p.project.residual_low, p.project.residual_high) = q.kernelBounds }
        configure(&p)
        let params = p
        let input = graph.pointer(block.input), output = graph.pointer(block.output)
        let residual = block.residual.map { UnsafePointer(graph.pointer($0.b)) }
        let expandWeights = expand.map { UnsafePointer($0.prepared.baseAddress!) }
        // bf16 pairs for the 1x1 convolutions when the channel-blocked pass has an expansion.
        let blocked = kinds.expand == smallMap && kinds.depthwise == blockedDepthwise && kinds.project == smallMap
        let pairs = ConvolutionPrecision.inUse == .bf16 && !block.isQuantized && blocked
            ? expand.map { ($0.bf16Pairs(block.expand!), project.bf16Pairs(block.project)) } : nil
        // The channel parts' partial sums (none when split by rows or in one part).
        let partialCount = Int(gs_inverted_residual_partials(&p))
        let partials = partialCount > 0 ? UnsafeMutablePointer<Float>.allocate(capacity: partialCount) : nil
        defer { partials?.deallocate() }
        ParallelFor.ranges(tasks, grain: grain) { range in
            var local = params
            if let pairs {
                gs_inverted_residual_run_bf16(&local, input, pairs.0, depthwise.prepared.baseAddress!, pairs.1, residual,
                                              output, partials, Int64(range.lowerBound), Int64(range.upperBound))
            } else {
                gs_inverted_residual_run(&local, input, expandWeights, depthwise.prepared.baseAddress!,
                                         project.prepared.baseAddress!, residual, output, partials,
                                         Int64(range.lowerBound), Int64(range.upperBound))
            }
        }
        reduce(params, block, partials: partials, residual: residual, output: output)
        return true
    }

    /// Adds the channel parts' partial sums and the residual to part 0's output.
    private static func reduce(_ params: gs_inverted_residual_params, _ block: ExecutionPlan.InvertedResidual,
                               partials: UnsafeMutablePointer<Float>?, residual: UnsafePointer<Float>?,
                               output: UnsafeMutablePointer<Float>) {
        guard let partials else { return }
        ParallelFor.ranges(block.output.floatCount, grain: 1 << 14) { range in
            var local = params
            gs_inverted_residual_reduce(&local, output, partials, residual, Int64(range.lowerBound),
                                        Int64(range.upperBound))
        }
    }
}
