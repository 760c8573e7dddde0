import CKernels

/// The `activation` and `add` steps: `gs_activation` (CKernels/activation.c) over pieces of
/// each channel plane, so PReLU gets its channel's slope.
enum GraphActivation {
    static func run(_ step: ExecutionPlan.ActivationStep, _ storage: GraphStorage) {
        precondition(step.input.shape == step.output.shape, "activation: input and output shapes differ")
        apply(step.function, x: storage.pointer(step.input), b: nil, y: storage.pointer(step.output),
              shape: step.output.shape, storage)
    }

    static func run(_ step: ExecutionPlan.Add, _ storage: GraphStorage) {
        precondition(step.a.shape == step.output.shape && step.b.shape == step.output.shape, "add: shapes differ")
        apply(step.activation, x: storage.pointer(step.a), b: storage.pointer(step.b), y: storage.pointer(step.output),
              shape: step.output.shape, storage)
    }

    private static func apply(_ function: NetworkGraph.ActivationFunction, x: UnsafeMutablePointer<Float>,
                              b: UnsafeMutablePointer<Float>?, y: UnsafeMutablePointer<Float>, shape: NetworkGraph.Shape,
                              _ storage: GraphStorage) {
        let plane = shape.height * shape.width
        storage.withSlopes(function) { slopes in
            forEachPlanePiece(channels: shape.channels, plane: plane) { channel, floats in
                let at = channel * plane + floats.lowerBound
                gs_activation(x + at, b.map { UnsafePointer($0 + at) }, Int64(floats.count), Int32(function.kind.rawValue),
                              function.alpha, function.beta, slopes.isEmpty ? 0 : slopes[channel], y + at)
            }
        }
    }
}
