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

/// A colour conversion on a `DeviceFallback`: the GLSL kernel until it fails, then the CPU
/// kernel for good (one warning), the failed frame re-converted there.
public typealias FallbackFrameConverter = DeviceFallback<FrameConverter>

extension DeviceFallback: FrameConverter where Stage == FrameConverter {
    public convenience init(primary: FrameConverter, fallback: @escaping () -> FrameConverter) {
        self.init(primary: primary, fallback: fallback) { _, error in
            "warning: the GPU colour conversion failed (\(error)); continuing on the CPU"
        }
    }

    public var name: String { active.name }

    public func image(from frame: YUVFrame, fullRange: Bool) throws -> Image {
        try run { try $0.image(from: frame, fullRange: fullRange) }
    }
}

extension ComputeChoice where Stage == FrameConverter {
    /// The colour conversion by `ComputeChoice`'s rules: under `auto` the GLSL kernel in a
    /// `FallbackFrameConverter`, under `gpu` alone (its errors are the caller's).
    public static func choose(_ options: ComputeOptions) throws -> ComputeChoice<FrameConverter> {
        try choose(options, cpuName: "the CPU kernel", vulkan: { context, fallback in
            let gpu = try VulkanFrameConverter(context: context)
            return fallback.map { FallbackFrameConverter(primary: gpu, fallback: $0) } ?? gpu
        }, cpu: { CPUFrameConverter() })
    }
}
