/// The face detector's network input for a photo scaled by a whole factor: [3][height][width]
/// floats, the photo (resized by `Image.resized`'s antialiased bilinear when the factor is not 1)
/// normalised as (x - mean) / standard deviation, the padding on the right and bottom zero (the
/// mean colour). Written a row at a time straight into its destination, on all cores: the
/// enlarged pass never stores the resized photo whole, and on the CPU path the destination is the
/// plan's input buffer itself (`NetworkBackend.run(_:writingInput:outputs:)`).
struct FaceInput {
    let image: Image
    /// The photo's size in the tensor (its size times the factor).
    let width: Int
    let height: Int
    /// The tensor's (padded) size.
    let paddedWidth: Int
    let paddedHeight: Int
    let scales: [Float]
    let shifts: [Float]

    init(_ image: Image, factor: Int, paddedWidth: Int, paddedHeight: Int, mean: [Float], standardDeviation: [Float]) {
        self.image = image
        width = image.width * factor
        height = image.height * factor
        precondition(width <= paddedWidth && height <= paddedHeight, "the padded size is smaller than the photo")
        self.paddedWidth = paddedWidth
        self.paddedHeight = paddedHeight
        scales = (0..<3).map { 1 / standardDeviation[$0] }
        shifts = (0..<3).map { -mean[$0] / standardDeviation[$0] }
    }

    var floatCount: Int { 3 * paddedWidth * paddedHeight }

    /// Writes the tensor's `floatCount` floats at `tensor`.
    func write(to tensor: UnsafeMutablePointer<Float>) {
        let plane = paddedWidth * paddedHeight
        let resampler = width == image.width && height == image.height
            ? nil : AntialiasedResize.Resampler(from: image, width: width, height: height)
        image.rgb.withUnsafeBufferPointer { rgb in
            let rgb = rgb.baseAddress!
            ParallelFor.ranges(3 * paddedHeight, grain: resampler?.rowGrain ?? 16) { rows in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: resampler == nil ? 0 : image.width)
                defer { scratch.deallocate() }
                for row in rows {
                    let c = row / paddedHeight, y = row % paddedHeight
                    let target = tensor + c * plane + y * paddedWidth
                    guard y < height else {
                        target.initialize(repeating: 0, count: paddedWidth)
                        continue
                    }
                    let scale = scales[c], shift = shifts[c]
                    if let resampler {
                        // The resized value rounded to a float first, as `Image.resized` stores it.
                        resampler.row(c, y, of: rgb, scratch: scratch, into: target)
                        for x in 0..<width { target[x] = target[x] * scale + shift }
                    } else {
                        let source = rgb + c * image.pixelCount + y * image.width
                        for x in 0..<width { target[x] = source[x] * scale + shift }
                    }
                    (target + width).initialize(repeating: 0, count: paddedWidth - width)
                }
            }
        }
    }
}
