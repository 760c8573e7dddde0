import CKernels
import Synchronization

/// CPU kernel of `ExecutionPlan.Convolution`: the C micro-kernel over bands of output rows, or
/// for 3x3 stride-1 layers Winograd's F(4x4, 3x3) over groups of tiles (`CKernels/winograd.c`),
/// in fp32 or, when `ConvolutionPrecision.inUse` is `.bf16`, the direct kernel with bf16 inputs
/// and weights (`CKernels/conv2d_bf16.c`). Winograd stays fp32 under bf16: a bf16 Winograd
/// (rounding its transformed tiles and weights) was built and measured (commit 68c595e, AMD EPYC
/// Zen 4, 2 cores): 4x the end-to-end error of the bf16 direct layers with fp32 Winograd (mean
/// 2.3 against 0.64 levels on a 1920x1280 photo, style 3) and no faster in `gpustyle profile`
/// at 1080p (the residual layers 342 vs 316 ms in one pair of runs).
struct PackedConvolution {
    let weights: ConvolutionWeights
    let packed: [Float]
    /// The Winograd-domain weights (3x3 layers with enough channels only).
    let winogradPacked: [Float]?
    /// The direct kernel's weights in bf16, in pairs of input channels (`gs_conv_bf16_pack_weights`):
    /// packed the first time a bf16 run needs them and kept, so an fp32 process never holds them
    /// (half the fp32 weights' bytes again) and switching precision back and forth repacks nothing.
    let bf16Weights: BF16Weights

    /// Winograd pays when both sides have at least this many channels: its input transform is
    /// per input channel and its output transform per output channel, while its products (a
    /// quarter of the direct convolution's) are per pair. One core, against the direct kernel
    /// (AVX-512, minimum of 7 runs): 32 -> 32 channels at 128x128 0.54 of the time, at 270x480
    /// 0.68; 32 -> 8 at 256x256 1.04; 8 -> 4 at 512x512 1.50.
    static let winogradMinimumChannels = 16

    /// Winograd pays only on input maps larger than this (one core's L2). On smaller maps the
    /// direct kernel, banded with its pad and norm fused (`runFused`), has every row in cache and
    /// is faster; on larger ones the direct kernel's rows come from memory. `gpustyle profile
    /// --device cpu`, walls, Winograd against direct on the residual layers (3-4 alternating runs
    /// each): 256x256 (64x64 maps, 0.5 MB) 22.9-23.5 vs 18.0-23.4 ms, 512x512 (128x128, 2 MB)
    /// 69-72 vs 58 ms, 640x480 (120x160, 2.5 MB) 76-94 vs 86-107 ms, 1024x1024 (256x256, 8 MB)
    /// 262-318 vs 284-326 ms, 1920x1080 (270x480, 17 MB) 563-615 vs 580-866 ms.
    static let winogradMinimumMapBytes = 2 << 20

    init(_ weights: ConvolutionWeights) {
        self.weights = weights
        var packed = [Float](repeating: 0, count: Int(gs_conv_packed_weight_count(
            Int32(weights.outputChannels), Int32(weights.inputChannels), Int32(weights.kernel))))
        gs_conv_pack_weights(weights.values, Int32(weights.outputChannels), Int32(weights.inputChannels),
                             Int32(weights.kernel), &packed)
        self.packed = packed
        if weights.kernel == 3 && weights.inputChannels >= Self.winogradMinimumChannels
            && weights.outputChannels >= Self.winogradMinimumChannels {
            var winograd = [Float](repeating: 0, count: Int(gs_winograd_packed_count(Int32(weights.outputChannels),
                                                                                      Int32(weights.inputChannels))))
            gs_winograd_pack(weights.values, Int32(weights.outputChannels), Int32(weights.inputChannels), &winograd)
            winogradPacked = winograd
        } else {
            winogradPacked = nil
        }
        bf16Weights = BF16Weights()
    }

    /// Whether `run` takes Winograd's F(4x4, 3x3) for `step` when maps larger than
    /// `minimumMapBytes` should (nil: none).
    func runsWinograd(_ step: ExecutionPlan.Convolution, minimumMapBytes: Int?) -> Bool {
        guard let minimumMapBytes, winogradPacked != nil, step.stride == 1, !step.input.split else { return false }
        let shape = step.input.sourceShape
        return 4 * shape.channels * shape.height * shape.width > minimumMapBytes
    }

    func run(_ step: ExecutionPlan.Convolution, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
             winogradMinimumMapBytes: Int? = Self.winogradMinimumMapBytes) throws {
        precondition(step.inputChannels == weights.inputChannels && step.outputShape.channels == weights.outputChannels
                     && step.kernel == weights.kernel, "convolution step does not match its weights")
        if runsWinograd(step, minimumMapBytes: winogradMinimumMapBytes), let winogradPacked {
            return runWinograd(step, input: input, output: output, packed: winogradPacked)
        }
        if ConvolutionPrecision.inUse == .bf16 { return try runBF16(step, input: input, output: output) }
        let pad = step.input
        let offsets = (0..<step.kernel).map { Int32(pad.columnOffset(tap: $0)) }
        let out = step.outputShape
        offsets.withUnsafeBufferPointer { offsets in
            packed.withUnsafeBufferPointer { packed in
                ParallelFor.ranges(out.height) { rows in
                    gs_conv2d_rows(input, Int64(pad.planeStride), Int64(pad.rowStride), offsets.baseAddress,
                                   Int32(step.inputChannels), Int32(step.kernel), Int32(step.stride),
                                   packed.baseAddress, Int32(out.channels),
                                   output, Int64(out.planeStride), Int32(out.width),
                                   Int32(rows.lowerBound), Int32(rows.upperBound))
                }
            }
        }
    }

    /// A fused step's band buffer holds about this many bytes (its padded rows for all input
    /// channels), so that it stays in L2 (2 MB per core here) beside the weights and the output
    /// rows. contract.1 at 1080p, one core (a C harness calling gs_conv2d_banded, minimum of 4):
    /// bands of 1 output row (0.77 MB) 262 ms, 2 rows (1.28 MB) 178 ms, 4 rows (2.3 MB) 166 ms;
    /// unfused 411 ms.
    static let bandBufferBytes = 1_536 * 1024

    /// Output rows per band of `step` (at least 1): as many as fit `bandBufferBytes`, or `forced`.
    /// In bf16 the buffer holds two channels per 32-bit word.
    static func bandRows(_ step: ExecutionPlan.Convolution, forced: Int? = nil, bf16: Bool = false) -> Int {
        if let forced { return max(1, forced) }
        let rowBytes = 4 * (bf16 ? (step.inputChannels + 1) / 2 : step.inputChannels) * step.input.rowStride
        let slots = bandBufferBytes / max(rowBytes, 1)
        return max(1, (slots - step.kernel) / step.stride + 1)
    }

    /// `step` with the pad (and normalisation) made band by band (`gs_conv2d_banded`); `source`
    /// is the pad's source, `affine` the per-layer (scale, shift) table the normalisation reads
    /// and, with `statistics`, the fused statistics write from `parameters` (γ, β). Without it
    /// the caller runs the step's statistics itself.
    func runFused(_ step: ExecutionPlan.FusedConvolution, source: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                  parameters: UnsafePointer<Float>, affine: UnsafeMutablePointer<Float>, statistics: Bool,
                  bandRows forced: Int? = nil) throws {
        let conv = step.convolution, pad = step.pad, out = conv.outputShape
        precondition(conv.inputChannels == weights.inputChannels && out.channels == weights.outputChannels
                     && conv.kernel == weights.kernel, "convolution step does not match its weights")
        let offsets = (0..<conv.kernel).map { Int32(pad.columnOffset(tap: $0)) }
        let rows = (0..<pad.paddedHeight).map { Int32(pad.sourceIndex($0, along: pad.window.rows)) }
        let runs = ReflectPad.runs(for: pad)
        let bf16 = ConvolutionPrecision.inUse == .bf16
        let band = Self.bandRows(conv, forced: forced, bf16: bf16)
        let table = step.normalize.map { UnsafePointer(affine + $0.layer * ExecutionPlan.parametersPerLayer) }
        // Each chunk of rows sums its channels' values into the row where it starts ([count,
        // shift, sum, sum of squares], gs_conv2d_banded); the chunks merge in row order, so the
        // result does not depend on which thread ran what.
        let stats = statistics ? step.statistics : nil
        let momentsStride = 4 * out.channels
        let moments = UnsafeMutableBufferPointer<Double>.allocate(capacity: stats == nil ? 0 : out.height * momentsStride)
        moments.initialize(repeating: 0)
        defer { moments.deallocate() }
        let momentsBase = stats == nil ? nil : moments.baseAddress
        try offsets.withUnsafeBufferPointer { offsets in
            try rows.withUnsafeBufferPointer { rows in
                try runs.withUnsafeBufferPointer { runs in
                    let input = gs_conv_band_input(
                        source: source, plane: Int64(pad.sourceShape.planeStride), width: Int32(pad.sourceShape.width),
                        rows: rows.baseAddress, runs: runs.baseAddress, run_count: Int32(runs.count),
                        padded_width: Int32(pad.paddedWidth), scale: table, shift: table.map { $0 + StyleNetwork.maxChannels },
                        activation: Int32(step.normalize?.activation.rawValue ?? 0))
                    try runBanded(conv, input: input, rowStride: pad.rowStride, offsets: offsets.baseAddress!,
                                  output: output, band: band, bf16: bf16, moments: momentsBase.map { ($0, momentsStride) })
                }
            }
        }
        if let stats {
            // Each chunk's mean and squared deviations, merged pairwise as tiles' are.
            var running = RunningMoments(channels: out.channels)
            for row in 0..<out.height {
                let chunk = moments.baseAddress! + row * momentsStride
                let count = chunk[0]  // the same for every channel of a chunk
                guard count > 0 else { continue }
                running.add(pixels: Int(count)) { c in
                    let m = chunk + 4 * c
                    return (m[1] + m[2] / count, max(0, m[3] - m[2] * m[2] / count))
                }
            }
            for c in 0..<out.channels {
                InstanceNorm.setAffine(layer: stats.layer, channel: c, mean: running.mean[c], variance: running.variance(c),
                                       parameters: parameters, affine: affine)
            }
        }
    }

    /// `gs_conv2d_banded` (or its bf16 twin) over the output rows on all cores; an
    /// `OutOfMemoryError` when a band buffer could not be allocated. `moments`: the chunks'
    /// moments rows and their stride.
    private func runBanded(_ conv: ExecutionPlan.Convolution, input: gs_conv_band_input, rowStride: Int,
                           offsets: UnsafePointer<Int32>, output: UnsafeMutablePointer<Float>, band: Int, bf16: Bool,
                           moments: (UnsafeMutablePointer<Double>, Int)?) throws {
        let out = conv.outputShape
        let failed = Atomic(false)
        let packedBF16 = bf16 ? bf16Weights.packed(weights) : []
        withUnsafePointer(to: input) { input in
            packed.withUnsafeBufferPointer { packed in
                packedBF16.withUnsafeBufferPointer { packedBF16 in
                    ParallelFor.ranges(out.height) { range in
                        let chunkMoments = moments.map { $0.0 + range.lowerBound * $0.1 }
                        let status = bf16
                            ? gs_conv2d_banded_bf16(input, Int64(rowStride), offsets, Int32(conv.inputChannels),
                                                    Int32(conv.kernel), Int32(conv.stride), packedBF16.baseAddress,
                                                    Int32(out.channels), output, Int64(out.planeStride), Int32(out.width),
                                                    Int32(range.lowerBound), Int32(range.upperBound), Int32(band),
                                                    chunkMoments)
                            : gs_conv2d_banded(input, Int64(rowStride), offsets, Int32(conv.inputChannels),
                                               Int32(conv.kernel), Int32(conv.stride), packed.baseAddress,
                                               Int32(out.channels), output, Int64(out.planeStride), Int32(out.width),
                                               Int32(range.lowerBound), Int32(range.upperBound), Int32(band), chunkMoments)
                        if status != 0 { failed.store(true, ordering: .relaxed) }
                    }
                }
            }
        }
        if failed.load(ordering: .relaxed) {
            // The band buffer: `band` output rows' padded input rows, two channels a word in bf16.
            let words = bf16 ? (conv.inputChannels + 1) / 2 : conv.inputChannels
            throw OutOfMemoryError(what: "the CPU path", bytes: 4 * words * rowStride * ((band - 1) * conv.stride + conv.kernel),
                                   purpose: "for a convolution's band of padded rows")
        }
    }

    /// `run` in bf16 on an already padded input: its rows are rounded and packed in channel pairs
    /// band by band (`gs_conv2d_banded_bf16` copying whole rows), as the fused steps do.
    private func runBF16(_ step: ExecutionPlan.Convolution, input: UnsafePointer<Float>,
                         output: UnsafeMutablePointer<Float>) throws {
        let pad = step.input
        let offsets = (0..<step.kernel).map { Int32(pad.columnOffset(tap: $0)) }
        let rows = (0..<pad.paddedHeight).map(Int32.init)
        let wholeRow = [gs_pad_run(dst: 0, src: 0, count: Int32(pad.rowStride), mode: 1)]
        try offsets.withUnsafeBufferPointer { offsets in
            try rows.withUnsafeBufferPointer { rows in
                try wholeRow.withUnsafeBufferPointer { runs in
                    let source = gs_conv_band_input(
                        source: input, plane: Int64(pad.planeStride), width: Int32(pad.rowStride), rows: rows.baseAddress,
                        runs: runs.baseAddress, run_count: 1, padded_width: Int32(pad.rowStride), scale: nil, shift: nil,
                        activation: 0)
                    try runBanded(step, input: source, rowStride: pad.rowStride, offsets: offsets.baseAddress!,
                                  output: output, band: Self.bandRows(step, bf16: true), bf16: true, moments: nil)
                }
            }
        }
    }

    private func runWinograd(_ step: ExecutionPlan.Convolution, input: UnsafePointer<Float>,
                             output: UnsafeMutablePointer<Float>, packed: [Float]) {
        let pad = step.input, out = step.outputShape
        let height = Int32(pad.paddedHeight), width = Int32(pad.paddedWidth)
        let tasks = Int(gs_winograd_tasks(height, width))
        let scratchFloats = Int(gs_winograd_scratch(Int32(step.inputChannels)))
        packed.withUnsafeBufferPointer { packed in
            ParallelFor.ranges(tasks) { range in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFloats)
                defer { scratch.deallocate() }
                gs_winograd_run(input, Int64(pad.planeStride), Int64(pad.rowStride), height, width,
                                Int32(step.inputChannels), packed.baseAddress, Int32(out.channels), output,
                                Int64(out.planeStride), Int64(range.lowerBound), Int64(range.upperBound), scratch)
            }
        }
    }
}

/// A convolution's bf16 weights, packed on first use (`PackedConvolution.bf16Weights`).
final class BF16Weights: Sendable {
    private let storage = Mutex<[UInt32]?>(nil)

    /// The packed weights of `weights`, made by the first call.
    func packed(_ weights: ConvolutionWeights) -> [UInt32] {
        storage.withLock { packed in
            if let packed { return packed }
            let (cout, cin, kernel) = (Int32(weights.outputChannels), Int32(weights.inputChannels), Int32(weights.kernel))
            var made = [UInt32](repeating: 0, count: Int(gs_conv_bf16_packed_count(cout, cin, kernel)))
            gs_conv_bf16_pack_weights(weights.values, cout, cin, kernel, &made)
            packed = made
            return made
        }
    }
}
