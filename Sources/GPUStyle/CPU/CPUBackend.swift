import CKernels

/// The network on this machine's cores: C micro-kernels for convolutions (AVX2+FMA when the CPU
/// has it), Swift for the memory-bound steps, all cores through Dispatch.
public final class CPUBackend: NetworkBackend {
    private let convolutions: [PackedConvolution]
    private var buffers: [ExecutionPlan.Buffer: UnsafeMutableBufferPointer<Float>] = [:]
    private var affine = [Float](repeating: 0, count: 0)
    /// Graph convolutions' packed weights, per `ModelConstants` object.
    let graphWeights = CPUGraphWeights()

    /// When and how inverted residual blocks run fused (tests force small strips).
    var invertedResidualTuning = CPUInvertedResidual.Tuning()
    /// 3x3 stride-1 convolutions of maps larger than this run Winograd's F(4x4, 3x3)
    /// (`PackedConvolution.winogradMinimumMapBytes`; nil: none do. Tests force both ways).
    var winogradMinimumMapBytes: Int? = PackedConvolution.winogradMinimumMapBytes
    /// Output rows per band of fused convolutions (nil: as many as fit `PackedConvolution.bandBufferBytes`;
    /// tests force small bands).
    var convolutionBandRows: Int?
    /// Whether fused convolutions take their statistics as their tiles are stored (tests turn it
    /// off to compare the pad fusion bit for bit: the statistics then differ in rounding only).
    var fusedStatistics = true
    /// How many inverted residual steps ran fused (not as their parts).
    private(set) var fusedBlockRuns = 0
    /// Whether an add step after a 1x1 convolution runs as its epilogue (`fusedAdd`; tests
    /// turn it off to compare with the steps one by one).
    var fusesResidualAdds = true
    /// How many add steps ran fused into the convolution before them.
    private(set) var fusedAddRuns = 0

    /// Called after every step with its index in the plan and its wall time in seconds
    /// (the profiler's hook; nil costs nothing).
    public var stepObserver: ((Int, ExecutionPlan.Step, Double) -> Void)?

    public var name: String {
        // The graph convolutions have an AVX-512 twin the style network's kernels do not.
        let style = String(cString: gs_cpu_kernel_isa()), graph = String(cString: gs_conv2d_isa())
        return "cpu (\(ParallelFor.workers) thread\(ParallelFor.workers == 1 ? "" : "s"), \(style == graph ? style : "\(style); graph convolutions \(graph)"))"
    }

    /// `ProfileReport.winogradMark` for the convolution steps this backend runs with Winograd's
    /// F(4x4, 3x3) (the style network's, and graph convolutions of `gs_conv2d_kind`'s
    /// `winogradKind`), else nil.
    public func kernelNote(for step: ExecutionPlan.Step, in plan: ExecutionPlan) -> String? {
        switch step {
        case .convolution(let conv) where runsWinograd(conv): ProfileReport.winogradMark
        case .fusedConvolution(let fused) where runsWinograd(fused.convolution): ProfileReport.winogradMark
        case .conv2d(let conv) where CPUConv2D.kind(conv) == CPUConv2D.winogradKind: ProfileReport.winogradMark
        default: nil
        }
    }

    private func runsWinograd(_ conv: ExecutionPlan.Convolution) -> Bool {
        convolutions[conv.layer].runsWinograd(conv, minimumMapBytes: winogradMinimumMapBytes)
    }

    /// Whether a fused convolution runs fused here (Winograd reads a whole padded map: such
    /// steps run as their parts).
    private func runsFused(_ step: ExecutionPlan.FusedConvolution) -> Bool { !runsWinograd(step.convolution) }

    /// Floats each buffer needs for `plan` on this backend: the plan's sizes, except that the
    /// padded buffer is only as large as the pads that run unfused need (none, when every pad is
    /// fused: at 1080p that is the 266 MB copy of contract.1's input).
    public func bufferFloats(for plan: ExecutionPlan) -> [ExecutionPlan.Buffer: Int] {
        var sizes = plan.bufferFloats
        guard sizes[.padded] != nil else { return sizes }
        let padded = plan.steps.flatMap { step -> [ExecutionPlan.Step] in
            if case .fusedConvolution(let fused) = step, runsFused(fused) { return [] }
            return step.parts
        }.compactMap { step -> Int? in
            guard case .pad(let pad) = step, pad.destination == .padded else { return nil }
            return pad.floatCount
        }.max()
        sizes[.padded] = padded
        return sizes
    }

    public init(weights: [ConvolutionWeights]) {
        convolutions = weights.map(PackedConvolution.init)
    }

    deinit { releaseBuffers() }

    public func releaseBuffers() {
        for buffer in buffers.values { buffer.deallocate() }
        buffers = [:]
    }

    /// Reuses the buffer from earlier runs when it is large enough; memory stays bounded by the
    /// largest plan seen. An allocation the system refuses is an `OutOfMemoryError`, not a trap.
    /// A fresh buffer starts as `input` followed by zeros (all zeros without an input).
    /// With `cleared` false a fresh buffer's contents are left undefined (its caller writes it whole).
    private func buffer(_ id: ExecutionPlan.Buffer, floats: Int, input: [Float]?,
                        cleared: Bool = true) throws -> UnsafeMutableBufferPointer<Float> {
        if let existing = buffers[id], existing.count >= floats {
            if let input { Self.fill(existing, from: input, zeroRest: false) }
            return existing
        }
        buffers[id]?.deallocate()
        buffers[id] = nil
        let fresh = try CheckedAllocation.largeFloats(max(floats, 1), for: "the \(id) buffer of the CPU path")
        if cleared { Self.fill(fresh, from: input ?? [], zeroRest: true) }
        buffers[id] = fresh
        return fresh
    }

    /// Floats per piece when a buffer is written on all cores: one 2 MiB huge page.
    private static let firstTouchGrain = 1 << 19

    /// Writes `values` at the start of `buffer` (and zeros after them when `zeroRest`) on all cores.
    /// A fresh buffer's pages are cleared by the kernel when first written, 2 MiB at a time on
    /// transparent huge pages: one thread writing a fresh process's plan buffers spent 30 % of
    /// `gpustyle faces` on a 720p photo in the kernel's page clearing (`perf record`, AMD EPYC
    /// Zen 4, 2 cores); here both cores take their share of it.
    private static func fill(_ buffer: UnsafeMutableBufferPointer<Float>, from values: [Float], zeroRest: Bool) {
        let base = buffer.baseAddress!
        let end = zeroRest ? buffer.count : values.count
        values.withUnsafeBufferPointer { source in
            ParallelFor.ranges(end, grain: firstTouchGrain) { range in
                let copied = range.clamped(to: 0..<source.count)
                if !copied.isEmpty { (base + copied.lowerBound).update(from: source.baseAddress! + copied.lowerBound, count: copied.count) }
                let zeros = range.clamped(to: source.count..<max(source.count, range.upperBound))
                if !zeros.isEmpty { (base + zeros.lowerBound).update(repeating: 0, count: zeros.count) }
            }
        }
    }

    public func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]], normParameters: [Float],
                    affine presetAffine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        try run(plan, inputs: inputs, writingInput: nil, normParameters: normParameters, affine: presetAffine, outputs: outputs)
    }

    /// Fills the plan's own `.input` buffer in place (`NetworkBackend.run(_:writingInput:outputs:)`).
    public func run(_ plan: ExecutionPlan, writingInput writeInput: (UnsafeMutableBufferPointer<Float>) -> Void,
             outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        try withoutActuallyEscaping(writeInput) { writeInput in
            try run(plan, inputs: [:], writingInput: writeInput, normParameters: [], affine: nil, outputs: outputs)
        }
    }

    private func run(_ plan: ExecutionPlan, inputs: [ExecutionPlan.Buffer: [Float]],
                     writingInput writeInput: ((UnsafeMutableBufferPointer<Float>) -> Void)?, normParameters: [Float],
                     affine presetAffine: [Float]?, outputs: [ExecutionPlan.Buffer]) throws -> [ExecutionPlan.Buffer: [Float]] {
        var storage: [ExecutionPlan.Buffer: UnsafeMutablePointer<Float>] = [:]
        for (id, floats) in bufferFloats(for: plan) {
            let input = inputs[id]
            precondition((input?.count ?? 0) <= floats, "input larger than its plan buffer")
            if id == .input, let writeInput {
                let buffer = try buffer(id, floats: floats, input: nil, cleared: false)
                writeInput(UnsafeMutableBufferPointer(start: buffer.baseAddress!, count: floats))
                storage[id] = buffer.baseAddress!
            } else {
                storage[id] = try buffer(id, floats: floats, input: input).baseAddress!
            }
        }
        let tableSize = max(normParameters.count, presetAffine?.count ?? 0,
                            StyleNetwork.layers.count * ExecutionPlan.parametersPerLayer)
        if affine.count < tableSize { affine = [Float](repeating: 0, count: tableSize) }
        if let presetAffine { affine.replaceSubrange(0..<presetAffine.count, with: presetAffine) }

        try normParameters.withUnsafeBufferPointer { parameters in
            try affine.withUnsafeMutableBufferPointer { affine in
                var index = 0
                while index < plan.steps.count {
                    let step = plan.steps[index]
                    let start = stepObserver == nil ? 0 : MonotonicClock.seconds()
                    // An add fused into the convolution before it is untimed: its time is the convolution's.
                    if case let (conv, add)? = fusedAdd(plan, at: index, downloading: outputs), let constants = plan.constants {
                        let graph = GraphStorage(buffers: storage, constants: constants)
                        graphWeights.convolution(conv, constants: constants)
                            .run(conv, input: graph.pointer(conv.input), output: graph.pointer(add.output),
                                 residual: (UnsafePointer(graph.pointer(add.a == conv.output ? add.b : add.a)), add.quantize))
                        fusedAddRuns += 1
                        stepObserver?(index, step, MonotonicClock.seconds() - start)
                        index += 2
                        continue
                    }
                    try execute(step, storage, parameters.baseAddress!, affine.baseAddress!, constants: plan.constants)
                    stepObserver?(index, step, MonotonicClock.seconds() - start)
                    index += 1
                }
            }
        }
        var results: [ExecutionPlan.Buffer: [Float]] = [:]
        for id in outputs {
            results[id] = Self.copied(storage[id]!, count: plan.returnedFloats(id))
        }
        return results
    }

    /// Floats per piece when an output is copied out on all cores (256 KiB): the text
    /// recogniser's 6906 x 40 probabilities (1.1 MB) are 5 pieces.
    private static let outputCopyGrain = 1 << 16

    /// The `count` floats at `source` as an array, copied on all cores when there are a few
    /// `outputCopyGrain`s of them.
    private static func copied(_ source: UnsafeMutablePointer<Float>, count: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            let target = buffer.baseAddress!
            ParallelFor.ranges(count, grain: outputCopyGrain) { range in
                (target + range.lowerBound).initialize(from: source + range.lowerBound, count: range.count)
            }
            initialized = count
        }
    }

    private func execute(_ step: ExecutionPlan.Step, _ storage: [ExecutionPlan.Buffer: UnsafeMutablePointer<Float>],
                         _ parameters: UnsafePointer<Float>, _ affine: UnsafeMutablePointer<Float>, constants: ModelConstants?) throws {
        let graph = GraphStorage(buffers: storage, constants: constants)
        switch step {
        case .pad(let pad):
            ReflectPad.run(pad, source: storage[pad.source]!, destination: storage[pad.destination]!)
        case .convolution(let conv):
            try convolutions[conv.layer].run(conv, input: storage[conv.input.destination]!, output: storage[conv.destination]!,
                                         winogradMinimumMapBytes: winogradMinimumMapBytes)
        case .fusedConvolution(let fused):
            guard runsFused(fused) else {
                for part in fused.parts { try execute(part, storage, parameters, affine, constants: constants) }
                return
            }
            try convolutions[fused.convolution.layer].runFused(fused, source: storage[fused.pad.source]!,
                                                               output: storage[fused.convolution.destination]!,
                                                               parameters: parameters, affine: affine,
                                                               statistics: fusedStatistics, bandRows: convolutionBandRows)
            if let statistics = fused.statistics, !fusedStatistics {
                try execute(.instanceNormStatistics(statistics), storage, parameters, affine, constants: constants)
            }
        case .instanceNormStatistics(let stats):
            InstanceNorm.statistics(stats, source: storage[stats.source]!, parameters: parameters, affine: affine)
        case .instanceNormApply(let apply):
            InstanceNorm.apply(apply, source: storage[apply.source]!, destination: storage[apply.destination]!,
                               residual: apply.residual.map { UnsafePointer(storage[$0]!) }, affine: affine)
        case .instanceNormMoments(let moments):
            InstanceNorm.moments(moments, source: storage[moments.source]!, destination: storage[moments.destination]!)
        case .activation(let s): GraphActivation.run(s, graph)
        case .add(let s): GraphActivation.run(s, graph)
        case .channelMultiply(let s): GraphCopy.run(s, graph)
        case .copy(let s): GraphCopy.run(s, graph)
        case .globalAveragePool(let s): GraphPool.run(s, graph)
        case .maxPool(let s): GraphPool.run(s, graph)
        case .softmax(let s): GraphSoftmax.run(s, graph)
        case .resize(let s): GraphResize.run(s, graph)
        case .pad2d(let s): GraphPad2D.run(s, graph)
        case .fakeQuant(let s): GraphFakeQuant.run(s, graph)
        case .quantizedInstanceNorm(let s): GraphQuantizedInstanceNorm.run(s, graph)
        case .conv2d(let conv):
            guard let constants else { preconditionFailure("a conv2d step in a plan without constants") }
            graphWeights.convolution(conv, constants: constants).run(conv, input: graph.pointer(conv.input),
                                                                     output: graph.pointer(conv.output))
        case .invertedResidual(let block):
            guard let constants else { preconditionFailure("an inverted_residual step in a plan without constants") }
            if CPUInvertedResidual.run(block, weights: graphWeights, constants: constants, graph,
                                       tuning: invertedResidualTuning) {
                fusedBlockRuns += 1
            } else {
                for part in block.parts { try execute(part, storage, parameters, affine, constants: constants) }
            }
        case .transposedConv2d(let conv):
            guard let constants else { preconditionFailure("a transposed_conv2d step in a plan without constants") }
            CPUConv2D.runTransposed(conv, constants: constants, input: graph.pointer(conv.input), output: graph.pointer(conv.output))
        }
    }
}
