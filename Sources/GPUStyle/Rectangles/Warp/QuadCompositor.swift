/// Puts an altered picture back over a quad of a photo: the last two steps of the in-place
/// pipeline (the CPU kernel `CPUQuadCompositor`, the GLSL kernel `VulkanQuadCompositor`; both
/// follow the same definition):
///
/// for every pixel p of `mask.region(width:height:)` of the photo, a = the mask's coverage at p
/// (`QuadMask`); where a > 0, v = `overlay` sampled bilinearly at `photoToOverlay.apply(p)` (the
/// warp's definition, `PerspectiveWarper`: clamp to the border, pixel centres at integers) and
/// RGB becomes photo + a (v − photo), exactly v where a == 1. Pixels with a == 0 and everything
/// outside the region keep the photo's values exactly; alpha is always the photo's.
public protocol QuadCompositor: AnyObject {
    var name: String { get }
    func composite(_ overlay: Image, photoToOverlay: Homography, mask: QuadMask, over photo: Image) throws -> Image
}

/// The CPU kernel: the warp back over the region, then `QuadMask.composite`.
public final class CPUQuadCompositor: QuadCompositor {
    /// The back-warp; any warper gives the definition's result (within its own tolerance).
    public let warper: PerspectiveWarper

    public init(warper: PerspectiveWarper = CPUPerspectiveWarper()) {
        self.warper = warper
    }

    public var name: String { "warp (\(warper.name)) + cpu blend" }

    public func composite(_ overlay: Image, photoToOverlay: Homography, mask: QuadMask, over photo: Image) throws -> Image {
        let region = mask.region(width: photo.width, height: photo.height)
        guard region.width > 0, region.height > 0 else { return photo }
        // Only the overlay's RGB is blended: skip warping its alpha.
        let rgb = Image(width: overlay.width, height: overlay.height, rgb: overlay.rgb)
        let back = try warper.warp(rgb, outputToSource: photoToOverlay, width: region.width, height: region.height,
                                   originX: region.x, originY: region.y, interpolation: .bilinear)
        return mask.composite(back, region: region, over: photo)
    }
}
