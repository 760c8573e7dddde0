/// The fusion of pads into the convolutions that read them (`ExecutionPlan.FusedConvolution`).
///
/// Why: the style network pads every layer's input into a copy before its convolution, and
/// normalises the map in place before that. At 1080p the first stride-2 layer's input is 32
/// full-resolution planes (266 MB): the apply read and wrote it, the pad read it and wrote its
/// padded copy, and the convolution read that copy back in 96 interleaved row streams, at 15 %
/// of the FMA peak (`gpustyle profile --device cpu --size 1920x1080`: conv 187 ms, pad 51 ms,
/// apply 24 ms). Fused, the map is read once and its padded rows are made in cache just before
/// the kernel reads them.
extension ExecutionPlan {
    /// This plan with every pad that the next step's convolution alone reads fused into it, the
    /// in-place normalisation just before the pad fused too when nothing after the convolution
    /// reads the normalised map, and the statistics of the convolution's output just after it.
    /// Plans with graph steps come back unchanged.
    public func fusingPads() -> ExecutionPlan {
        guard steps.allSatisfy({ $0.styleBuffers != nil }) else { return self }
        var fused: [Step] = []
        var index = 0
        while index < steps.count {
            guard case .pad(let pad) = steps[index], index + 1 < steps.count,
                  case .convolution(let conv) = steps[index + 1],
                  conv.input.destination == pad.destination, conv.input.source == pad.source,
                  conv.destination != pad.source, !isRead(pad.destination, after: index + 1) else {
                fused.append(steps[index])
                index += 1
                continue
            }
            var normalize: InstanceNormApply?
            if case .instanceNormApply(let apply)? = fused.last, apply.source == pad.source,
               apply.destination == pad.source, apply.residual == nil, apply.shape == pad.sourceShape,
               !isRead(pad.source, after: index + 1) {
                normalize = apply
                fused.removeLast()
            }
            var statistics: InstanceNormStatistics?
            if index + 2 < steps.count, case .instanceNormStatistics(let s) = steps[index + 2], s.source == conv.destination,
               s.shape == conv.outputShape {
                statistics = s
            }
            fused.append(.fusedConvolution(.init(normalize: normalize, convolution: conv, statistics: statistics)))
            index += statistics == nil ? 2 : 3
        }
        return ExecutionPlan(steps: fused, bufferFloats: bufferFloats, inputShape: inputShape, output: output,
                             outputShape: outputShape, outputFloats: outputFloats, constants: constants)
    }

    /// This plan with its fused convolutions as their parts (a backend that records the parts
    /// anyway profiles them as steps of their own).
    public func unfusingPads() -> ExecutionPlan {
        let parts = steps.flatMap { step -> [Step] in
            if case .fusedConvolution(let fused) = step { return fused.parts }
            return [step]
        }
        return ExecutionPlan(steps: parts, bufferFloats: bufferFloats, inputShape: inputShape, output: output,
                             outputShape: outputShape, outputFloats: outputFloats, constants: constants)
    }

    /// Whether a step after `index` reads `buffer` before one overwrites it (the plan's output is
    /// read by its caller after the last step).
    private func isRead(_ buffer: Buffer, after index: Int) -> Bool {
        for step in steps[(index + 1)...] {
            guard let access = step.styleBuffers else { return true }
            if access.reads.contains(buffer) { return true }
            if access.writes == buffer { return false }
        }
        return buffer == output
    }
}

extension ExecutionPlan.Step {
    /// The buffers a style-network step reads, and the one it writes (nil for graph steps,
    /// whose regions say more; a step that writes no buffer has nil `writes`).
    var styleBuffers: (reads: [ExecutionPlan.Buffer], writes: ExecutionPlan.Buffer?)? {
        switch self {
        case .pad(let s): ([s.source], s.destination)
        case .convolution(let s): ([s.input.destination], s.destination)
        case .fusedConvolution(let s): ([s.pad.source], s.convolution.destination)
        case .instanceNormStatistics(let s): ([s.source], nil)
        case .instanceNormApply(let s): ([s.source] + (s.residual.map { [$0] } ?? []), s.destination)
        case .instanceNormMoments(let s): ([s.source], s.destination)
        default: nil
        }
    }
}
