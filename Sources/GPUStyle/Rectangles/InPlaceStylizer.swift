/// Apple's "Tracking and altering images", still-image half: find the picture on the wall,
/// straighten it, stylize it, and put it back in place.
///
/// Steps: detect the best quad (`RectangleDetector`) or take a given one; rectify it
/// (`PerspectiveCorrection`, size `Quad.rectifiedSize`, scaled up so both sides are at least
/// the network's 32 pixels); stylize with the `Stylizer` (strength and device as configured);
/// warp the result back onto the quad (the inverse mapping, bilinear, only over the quad's
/// bounding box) and composite it over the photo with `QuadMask` coverage (anti-aliased edge,
/// `feather` pixels wide), both done by the `compositor`.
public final class InPlaceStylizer {
    public let stylizer: Stylizer
    /// Rectifies the quad.
    public let warper: PerspectiveWarper
    /// Warps the stylized picture back and blends it in.
    public let compositor: QuadCompositor
    /// Width of the blended edge in pixels (see `QuadMask`).
    public var feather: Double = 1.5
    public var detectionOptions = RectangleDetectionOptions()

    public enum Fallback: String, Sendable, CaseIterable {
        /// No rectangle: throw `NoRectangleError`.
        case none
        /// No rectangle: stylize the whole photo.
        case whole
    }

    public struct NoRectangleError: Error, CustomStringConvertible {
        public let description = "no rectangle found in the photo"
    }

    /// What was done.
    public struct Result {
        public let image: Image
        /// The quad that was altered (nil when the whole photo was stylized).
        public let quad: Quad?
        /// Size of the rectified picture the network ran on.
        public let rectifiedWidth: Int
        public let rectifiedHeight: Int
    }

    /// `compositor` nil: the GLSL kernel on the warper's device when `warper` is a
    /// `VulkanPerspectiveWarper` (both steps stay on one backend), else the warp with `warper`
    /// and the CPU blend.
    public init(stylizer: Stylizer, warper: PerspectiveWarper = CPUPerspectiveWarper(), compositor: QuadCompositor? = nil) {
        self.stylizer = stylizer
        self.warper = warper
        if let compositor {
            self.compositor = compositor
        } else if let vulkan = warper as? VulkanPerspectiveWarper {
            self.compositor = VulkanQuadCompositor(context: vulkan.context)
        } else {
            self.compositor = CPUQuadCompositor(warper: warper)
        }
    }

    /// Detects the best rectangle and alters it (or follows `fallback` when there is none).
    public func stylize(_ photo: Image, mix: StyleMix, strength: Float = 1, preserveColor: Bool = false, fallback: Fallback = .none,
                        detector: RectangleDetector = RectangleDetector()) throws -> Result {
        var options = detectionOptions
        options.maximumObservations = 1
        if let best = try detector.detect(photo, options: options).first {
            return try stylize(photo, in: best.quad, mix: mix, strength: strength, preserveColor: preserveColor)
        }
        switch fallback {
        case .none:
            throw NoRectangleError()
        case .whole:
            let image = try stylizer.stylize(photo, mix: mix, strength: strength, preserveColor: preserveColor)
            return Result(image: image, quad: nil, rectifiedWidth: photo.width, rectifiedHeight: photo.height)
        }
    }

    /// Alters the picture inside `quad` (top-left, top-right, bottom-right, bottom-left).
    public func stylize(_ photo: Image, in quad: Quad, mix: StyleMix, strength: Float = 1, preserveColor: Bool = false) throws -> Result {
        try quad.validateForWarp()
        let mask = try QuadMask(quad: quad, feather: feather)
        let (width, height) = Self.networkSize(quad.rectifiedSize)
        try PerspectiveCorrection.checkSize(width: width, height: height)
        let rectToPhoto = try Homography.rectangle(width: width, height: height, to: quad)
        let rectified = try warper.warp(photo, outputToSource: rectToPhoto, width: width, height: height)
        let stylized = try stylizer.stylize(rectified, mix: mix, strength: strength, preserveColor: preserveColor)
        let image = try compositor.composite(stylized, photoToOverlay: rectToPhoto.inverse, mask: mask, over: photo)
        return Result(image: image, quad: quad, rectifiedWidth: width, rectifiedHeight: height)
    }

    /// The rectified size scaled up (aspect kept) so both sides reach the network's minimum.
    static func networkSize(_ size: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let minimum = StyleNetwork.minimumInputSide
        let shorter = min(size.width, size.height)
        guard shorter < minimum else { return size }
        let scale = Double(minimum) / Double(shorter)
        return (max(minimum, Int((Double(size.width) * scale).rounded(.up))),
                max(minimum, Int((Double(size.height) * scale).rounded(.up))))
    }
}
