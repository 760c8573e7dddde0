import CKernels

/// CPU kernels of `ExecutionPlan.InstanceNormStatistics` and `ExecutionPlan.InstanceNormApply`.
enum InstanceNorm {
    /// Per channel (scale, shift) from mean and biased variance over the plane. Sums are taken
    /// relative to the plane's first value in float vectors over short runs, then combined in
    /// double: single-pass, yet free of the cancellation that plain E[x²] − E[x]² suffers
    /// when the mean is large against the spread.
    static func statistics(_ step: ExecutionPlan.InstanceNormStatistics, source: UnsafePointer<Float>,
                           parameters: UnsafePointer<Float>, affine: UnsafeMutablePointer<Float>) {
        let shape = step.shape
        let count = shape.height * shape.width
        ParallelFor.ranges(shape.channels) { channels in
            for c in channels {
                let (mean, variance) = moments(source + c * shape.planeStride, count)
                setAffine(layer: step.layer, channel: c, mean: mean, variance: variance, parameters: parameters, affine: affine)
            }
        }
    }

    /// A channel's (scale, shift) in the affine table from its mean and biased variance and the
    /// layer's γ and β.
    static func setAffine(layer: Int, channel c: Int, mean: Double, variance: Double, parameters: UnsafePointer<Float>,
                          affine: UnsafeMutablePointer<Float>) {
        let table = parameters + layer * ExecutionPlan.parametersPerLayer
        let out = affine + layer * ExecutionPlan.parametersPerLayer
        (out[c], out[StyleNetwork.maxChannels + c]) = folded(gamma: table[c], beta: table[StyleNetwork.maxChannels + c],
                                                            mean: mean, variance: variance)
    }

    /// Instance norm and its γ, β folded into one affine: scale = γ / sqrt(var + ε), shift =
    /// β − mean · scale (biased variance). The whole-image statistics, the tiles' merged ones
    /// (`RunningMoments.affine`) and the fused convolutions' all end here.
    static func folded(gamma: Float, beta: Float, mean: Double, variance: Double) -> (scale: Float, shift: Float) {
        let scale = gamma / Float((variance + Double(StyleNetwork.instanceNormEpsilon)).squareRoot())
        return (scale, beta - Float(mean) * scale)
    }

    /// Per channel [mean, M2] of a tile's map, for `RunningMoments` to merge.
    static func moments(_ step: ExecutionPlan.InstanceNormMoments, source: UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>) {
        let shape = step.shape
        let count = shape.height * shape.width
        ParallelFor.ranges(shape.channels) { channels in
            for c in channels {
                let (mean, variance) = moments(source + c * shape.planeStride, count)
                destination[2 * c] = Float(mean)
                destination[2 * c + 1] = Float(variance * Double(count))
            }
        }
    }

    static func moments(_ plane: UnsafePointer<Float>, _ count: Int) -> (mean: Double, variance: Double) {
        var sum = 0.0, squares = 0.0
        let shift = plane[0]
        gs_instance_norm_moments(plane, Int64(count), shift, &sum, &squares)
        let n = Double(count)
        let meanShifted = sum / n
        return (Double(shift) + meanShifted, max(0, squares / n - meanShifted * meanShifted))
    }

    static func apply(_ step: ExecutionPlan.InstanceNormApply, source: UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>,
                      residual: UnsafePointer<Float>?, affine: UnsafePointer<Float>) {
        let shape = step.shape
        let count = shape.height * shape.width
        let table = affine + step.layer * ExecutionPlan.parametersPerLayer
        let activation = step.activation
        let chunk = 16384
        let chunksPerPlane = (count + chunk - 1) / chunk
        ParallelFor.ranges(shape.channels * chunksPerPlane, grain: 4) { items in
            for item in items {
                let c = item / chunksPerPlane
                let begin = (item % chunksPerPlane) * chunk, end = min(begin + chunk, count)
                let scale = table[c], shift = table[StyleNetwork.maxChannels + c]
                let offset = c * shape.planeStride
                let src = source + offset, dst = destination + offset
                gs_instance_norm_apply(src + begin, Int64(end - begin), scale, shift, Int32(activation.rawValue),
                                     residual.map { $0 + offset + begin }, dst + begin)
            }
        }
    }
}
