/// A decoded picture in the layout the network consumes: planar float channels.
public struct Image: Sendable {
    public var width: Int
    public var height: Int
    /// Red, green and blue planes, each `[height][width]`, values in [0, 1].
    public var rgb: [Float]
    /// `[height][width]` in [0, 1]; nil when the source had no transparency.
    public var alpha: [Float]?
    /// How the file was decoded (format, orientation, colour profile, warnings); nil for
    /// images made in memory. Operations that make a new image do not carry it over.
    public var decodeReport: DecodeReport?

    public init(width: Int, height: Int, rgb: [Float], alpha: [Float]? = nil) {
        // Mismatched sizes are a programming error, not bad input data.
        precondition(width >= 0 && height >= 0, "negative image size")
        precondition(rgb.count == 3 * width * height, "rgb must hold 3 x height x width values")
        precondition(alpha == nil || alpha!.count == width * height, "alpha must hold height x width values")
        self.width = width
        self.height = height
        self.rgb = rgb
        self.alpha = alpha
    }

    public var pixelCount: Int { width * height }
}
