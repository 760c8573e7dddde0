/// Turns a Y4M frame into the planar RGB the live stages work on: the CPU kernel
/// (`YUVConversion`) or its GLSL twin (`VulkanFrameConverter`), the same definition.
public protocol FrameConverter: AnyObject {
    var name: String { get }
    func image(from frame: YUVFrame, fullRange: Bool) throws -> Image
}

public final class CPUFrameConverter: FrameConverter {
    public init() {}
    public var name: String { "cpu" }
    public func image(from frame: YUVFrame, fullRange: Bool) throws -> Image {
        YUVConversion.image(from: frame, fullRange: fullRange)
    }
}
