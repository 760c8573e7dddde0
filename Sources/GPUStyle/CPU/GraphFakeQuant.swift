import CKernels

/// The `fake_quant` step (CKernels/fake_quant.c) on all cores.
enum GraphFakeQuant {
    static func run(_ step: ExecutionPlan.FakeQuant, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "fake_quant: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output), q = step.quantize
        ParallelFor.ranges(step.output.floatCount, grain: 1 << 15) { range in
            gs_fake_quant(x + range.lowerBound, y + range.lowerBound, Int64(range.count), q.scale, Float(q.zeroPoint),
                          Float(q.low), Float(q.high))
        }
    }
}
