/// Per-channel mean and variance of a map seen tile by tile: each tile's [mean, M2] (from a
/// `InstanceNormMoments` step) is merged in double with Chan, Golub and LeVeque's pairwise update
/// ("Updating formulae and a pairwise algorithm for computing sample variances", 1979), so the
/// whole-image statistics match one pass over the whole map without the cancellation of
/// E[x²] − E[x]².
struct RunningMoments {
    private(set) var count = 0.0
    private(set) var mean: [Double]
    private(set) var m2: [Double]

    init(channels: Int) {
        mean = [Double](repeating: 0, count: channels)
        m2 = [Double](repeating: 0, count: channels)
    }

    /// Adds a tile of `pixels` pixels; `moments` holds [mean, M2] per channel.
    mutating func add(_ moments: [Float], pixels: Int) {
        add(pixels: pixels) { c in (Double(moments[2 * c]), Double(moments[2 * c + 1])) }
    }

    /// Adds a part of `pixels` pixels whose channel `c` has `moments(c)`, in double (the fused
    /// convolutions' chunks of rows, `PackedConvolution.runFused`).
    mutating func add(pixels: Int, _ moments: (Int) -> (mean: Double, m2: Double)) {
        let n = Double(pixels), total = count + n
        for c in mean.indices {
            let (tileMean, tileM2) = moments(c)
            let delta = tileMean - mean[c]
            mean[c] += delta * n / total
            m2[c] += tileM2 + delta * delta * count * n / total
        }
        count = total
    }

    /// Channel c's biased variance.
    func variance(_ c: Int) -> Double { max(0, m2[c] / count) }

    /// The layer's folded instance-norm affine (`InstanceNorm.folded`), as
    /// `InstanceNormStatistics` computes it.
    func affine(gamma: ArraySlice<Float>, beta: ArraySlice<Float>) -> (scale: [Float], shift: [Float]) {
        var scale = [Float](repeating: 0, count: mean.count), shift = scale
        for c in mean.indices {
            (scale[c], shift[c]) = InstanceNorm.folded(gamma: gamma[gamma.startIndex + c], beta: beta[beta.startIndex + c],
                                                       mean: mean[c], variance: variance(c))
        }
        return (scale, shift)
    }
}
