/// A warp on a `DeviceFallback`: the GLSL kernel until it fails, then the CPU kernel for good
/// (one warning), the failed warp re-run there (the same definition, so the same image).
public typealias FallbackPerspectiveWarper = DeviceFallback<PerspectiveWarper>

extension DeviceFallback: PerspectiveWarper where Stage == PerspectiveWarper {
    public convenience init(primary: PerspectiveWarper, fallback: @escaping () -> PerspectiveWarper) {
        self.init(primary: primary, fallback: fallback) { _, error in
            "warning: the GPU warp failed (\(error)); continuing on the CPU kernel"
        }
    }

    public var name: String { active.name }

    public func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
                     originX: Int, originY: Int, interpolation: WarpInterpolation) throws -> Image {
        try run {
            try $0.warp(source, outputToSource: outputToSource, width: width, height: height,
                        originX: originX, originY: originY, interpolation: interpolation)
        }
    }
}

extension ComputeChoice where Stage == PerspectiveWarper {
    /// The warp kernel by `ComputeChoice`'s rules: `cpu` the CPU kernel; `gpu` the GLSL kernel
    /// alone (its errors are the caller's); `auto` the GLSL kernel on a real GPU in a
    /// `FallbackPerspectiveWarper`, else (no Vulkan, or only a CPU implementation such as
    /// lavapipe) the CPU kernel.
    public static func choose(_ options: ComputeOptions) throws -> ComputeChoice<PerspectiveWarper> {
        try choose(options, cpuName: "the CPU kernel", vulkan: { context, fallback in
            let gpu = try VulkanPerspectiveWarper(context: context)
            return fallback.map { FallbackPerspectiveWarper(primary: gpu, fallback: $0) } ?? gpu
        }, cpu: { CPUPerspectiveWarper() })
    }
}
