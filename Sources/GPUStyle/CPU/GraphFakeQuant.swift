import CKernels

extension NetworkGraph.FakeQuantize {
    /// (scale, low - zero point, high - zero point): what the fused epilogues take
    /// (`gs_conv2d_params.quant_scale`, CKernels/fake_quant.h); a scale of 0 there means none.
    var kernelBounds: (scale: Float, low: Float, high: Float) {
        precondition(scale > 0 && scale.isFinite, "fake_quant: the scale is not positive")
        return (scale, Float(low) - Float(zeroPoint), Float(high) - Float(zeroPoint))
    }

    /// `count` values of `x` fake-quantised into `y` (`gs_fake_quant`; `y` may be `x`).
    func apply(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int) {
        gs_fake_quant(x, y, Int64(count), scale, Float(zeroPoint), Float(low), Float(high))
    }
}

/// The `fake_quant` step (CKernels/fake_quant.c) on all cores.
enum GraphFakeQuant {
    static func run(_ step: ExecutionPlan.FakeQuant, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "fake_quant: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output), q = step.quantize
        ParallelFor.ranges(step.output.floatCount, grain: 1 << 15) { range in
            q.apply(x + range.lowerBound, y + range.lowerBound, count: range.count)
        }
    }
}
