import CKernels

/// The `activation` and `add` steps: `gs_activation` (CKernels/activation.c) over pieces of
/// each channel plane, so PReLU gets its channel's slope; a fused fake quantisation
/// (`gs_fake_quant`) follows on each piece of up to `quantizedPiece` floats while it is in L1.
enum GraphActivation {
    /// Floats per activation-then-quantisation piece (8 KB).
    static let quantizedPiece = 2048

    static func run(_ step: ExecutionPlan.ActivationStep, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "activation: input and output shapes differ")
        apply(step.function, step.quantize, x: storage.pointer(step.input), b: nil, y: storage.pointer(step.output),
              shape: step.output.shape, storage)
    }

    static func run(_ step: ExecutionPlan.Add, _ storage: GraphStorage) {
        precondition(step.a.shape == step.output.shape && step.b.shape == step.output.shape, "add: shapes differ")
        apply(step.activation, step.quantize, x: storage.pointer(step.a), b: storage.pointer(step.b),
              y: storage.pointer(step.output), shape: step.output.shape, storage)
    }

    private static func apply(_ function: NetworkGraph.ActivationFunction, _ quantize: NetworkGraph.FakeQuantize?,
                              x: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>?, y: UnsafeMutablePointer<Float>,
                              shape: NetworkGraph.Shape, _ storage: GraphStorage) {
        let plane = shape.height * shape.width
        storage.withSlopes(function) { slopes in
            forEachPlanePiece(channels: shape.channels, plane: plane) { channel, floats in
                let slope = slopes.isEmpty ? 0 : slopes[channel]
                guard let quantize else {
                    let at = channel * plane + floats.lowerBound
                    gs_activation(x + at, b.map { UnsafePointer($0 + at) }, Int64(floats.count),
                                  Int32(function.kind.rawValue), function.alpha, function.beta, slope, y + at)
                    return
                }
                for start in stride(from: floats.lowerBound, to: floats.upperBound, by: quantizedPiece) {
                    let at = channel * plane + start, count = Int64(min(quantizedPiece, floats.upperBound - start))
                    gs_activation(x + at, b.map { UnsafePointer($0 + at) }, count, Int32(function.kind.rawValue),
                                  function.alpha, function.beta, slope, y + at)
                    quantize.apply(y + at, y + at, count: Int(count))
                }
            }
        }
    }
}
