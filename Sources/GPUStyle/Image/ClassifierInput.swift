/// What an ImageNet classifier trained with torchvision's recipe expects (`Resize(256)`,
/// `CenterCrop(224)`, `ToTensor`, `Normalize`): the shorter side resized to `resizeShorterSide`
/// with an antialiased bilinear filter, the centre `cropSide` square, each channel scaled by
/// ImageNet's mean and standard deviation. The same steps are written out in
/// `tools/make_classify_fixtures.py`, which made the reference crops the tests compare with.
public struct ClassifierInput: Sendable {
    /// The shorter side after resizing; the longer one keeps the aspect ratio, truncated.
    public var resizeShorterSide = 256
    /// Side of the centre crop the network sees.
    public var cropSide = 224
    /// Per-channel mean and standard deviation of ImageNet's training photos (RGB, in [0, 1]).
    public var mean: [Float] = [0.485, 0.456, 0.406]
    public var standardDeviation: [Float] = [0.229, 0.224, 0.225]

    public init() {}

    /// The size after resizing a `width` x `height` image.
    public func resizedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let short = min(width, height), long = max(width, height)
        let scaled = Int(Double(resizeShorterSide) * Double(long) / Double(short))
        return width <= height ? (resizeShorterSide, scaled) : (scaled, resizeShorterSide)
    }

    /// The crop's top-left corner in a resized image: half the margin, halves rounded to even
    /// (torchvision rounds with Python's `round`).
    public func cropOrigin(width: Int, height: Int) -> (x: Int, y: Int) {
        func half(_ margin: Int) -> Int {
            let value = Double(margin) / 2
            return Int(value.rounded(.toNearestOrEven))
        }
        return (half(width - cropSide), half(height - cropSide))
    }

    /// The `cropSide` square the network sees, as 8-bit values (k / 255) like the uint8 image
    /// torchvision crops: resized in [0, 255], rounded half to even and clamped.
    public func crop(_ image: Image) -> Image {
        precondition(image.width > 0 && image.height > 0, "empty image")
        let size = resizedSize(width: image.width, height: image.height)
        let origin = cropOrigin(width: size.width, height: size.height)
        let columns = AntialiasedResize.weights(input: image.width, output: size.width)
        let rows = AntialiasedResize.weights(input: image.height, output: size.height)
        let plane = image.width * image.height, side = cropSide
        var rgb = [Float](repeating: 0, count: 3 * side * side)
        var row = [Double](repeating: 0, count: image.width)
        for c in 0..<3 {
            for y in 0..<side {
                // Vertical pass for the crop's row, then the horizontal pass over its columns.
                let taps = rows[origin.y + y]
                for x in 0..<image.width { row[x] = 0 }
                for (k, weight) in taps.weights.enumerated() {
                    let source = c * plane + (taps.first + k) * image.width
                    for x in 0..<image.width { row[x] += weight * Double(image.rgb[source + x]) * 255 }
                }
                for x in 0..<side {
                    let taps = columns[origin.x + x]
                    var value = 0.0
                    for (k, weight) in taps.weights.enumerated() { value += weight * row[taps.first + k] }
                    rgb[c * side * side + y * side + x] = Float(min(255, max(0, value.rounded(.toNearestOrEven)))) / 255
                }
            }
        }
        return Image(width: side, height: side, rgb: rgb)
    }

    /// The network's input: `crop` normalized by `mean` and `standardDeviation`, planar RGB
    /// (NCHW with N = 1).
    public func tensor(_ image: Image) -> [Float] {
        normalized(crop(image))
    }

    /// A `cropSide` square (as `crop` makes it) normalized by `mean` and `standardDeviation`.
    public func normalized(_ cropped: Image) -> [Float] {
        precondition(cropped.width == cropSide && cropped.height == cropSide, "not a \(cropSide)x\(cropSide) crop")
        let count = cropSide * cropSide
        var values = cropped.rgb
        for c in 0..<3 {
            for i in c * count..<(c + 1) * count { values[i] = (values[i] - mean[c]) / standardDeviation[c] }
        }
        return values
    }
}
