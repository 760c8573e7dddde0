import CKernels

/// The `quantized_instance_norm` step (CKernels/quantized_instance_norm.c): each channel's
/// statistics and affine on its own core, then the apply over all cores.
enum GraphQuantizedInstanceNorm {
    static func run(_ step: ExecutionPlan.QuantizedInstanceNormStep, _ storage: GraphStorage) {
        let shape = step.input.shape, plane = step.input.planeStride
        precondition(step.output.shape == shape, "quantized_instance_norm: input and output shapes differ")
        let x = storage.pointer(step.input), y = storage.pointer(step.output)
        let gamma = storage.pointer(step.gamma), beta = storage.pointer(step.beta)
        let table = step.norm.table, epsilon = step.norm.epsilon, relu: Int32 = step.norm.relu ? 1 : 0
        var scale = [Float](repeating: 0, count: shape.channels), shift = scale
        table.withUnsafeBufferPointer { q in
            scale.withUnsafeMutableBufferPointer { scale in
                shift.withUnsafeMutableBufferPointer { shift in
                    let (scale, shift) = (scale.baseAddress!, shift.baseAddress!)
                    ParallelFor.ranges(shape.channels, grain: 1) { channels in
                        for c in channels {
                            gs_quantized_instance_norm_parameters(x + c * plane, Int64(plane), gamma[c], beta[c], q.baseAddress!,
                                                                  epsilon, scale + c, shift + c)
                        }
                    }
                }
            }
            forEachPlanePiece(channels: shape.channels, plane: plane) { c, floats in
                gs_quantized_instance_norm_apply(x + c * plane + floats.lowerBound, y + c * plane + floats.lowerBound,
                                                 Int64(floats.count), scale[c], shift[c], q.baseAddress!, relu)
            }
        }
    }
}
