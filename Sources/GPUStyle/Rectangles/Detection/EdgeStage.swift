/// Which kernels compute the rectangle detector's pixel-parallel front (channels, blur, Sobel,
/// non-maximum suppression): the CPU kernels of `DetectEdges`, or their GLSL twins on Vulkan
/// (`VulkanEdgeDetector`, same numerics). The later stages (lines, quads, refinement) run on
/// the CPU either way.
public enum EdgeStage {
    case cpu
    case vulkan(VulkanEdgeDetector)
    /// A stage that switches to the CPU kernels for good when the primary fails
    /// (`ComputeChoice<EdgeStage>.choose` under `auto`).
    case fallback(DeviceFallback<EdgeStage>)

    /// The Vulkan stage on `context` (pipelines are built on first use and kept).
    public static func vulkan(context: VulkanContext) throws -> EdgeStage {
        .vulkan(try VulkanEdgeDetector(context: context))
    }

    /// What runs the stage: "cpu", the Vulkan device's name, or (`.fallback`) the active one's.
    public var name: String {
        switch self {
        case .cpu: "cpu"
        case .vulkan(let detector): detector.name
        case .fallback(let stages): stages.active.name
        }
    }

    func run(_ image: Image) throws -> EdgeMap {
        switch self {
        case .cpu: DetectEdges.run(image)
        case .vulkan(let detector): try detector.run(image)
        case .fallback(let stages): try stages.run { try $0.run(image) }
        }
    }
}

extension ComputeChoice where Stage == EdgeStage {
    /// The edge stage for `options.device` by `ComputeChoice`'s rules: under `auto` the Vulkan
    /// stage in a `.fallback` to the CPU kernels, under `gpu` alone (its errors are thrown).
    public static func choose(_ options: ComputeOptions) throws -> ComputeChoice<EdgeStage> {
        try choose(options, cpuName: "the CPU kernels", vulkan: { context, fallback in
            let gpu = try EdgeStage.vulkan(context: context)
            guard let fallback else { return gpu }
            return .fallback(DeviceFallback(primary: gpu, fallback: fallback) { _, error in
                "warning: the GPU edge stages failed (\(error)); continuing on the CPU kernels"
            })
        }, cpu: { .cpu })
    }
}
