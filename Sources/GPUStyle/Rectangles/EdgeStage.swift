/// Which kernels compute the rectangle detector's pixel-parallel front (channels, blur, Sobel,
/// non-maximum suppression): the CPU kernels of `DetectEdges`, or their GLSL twins on Vulkan
/// (`VulkanEdgeDetector`, same numerics). The later stages (lines, quads, refinement) run on
/// the CPU either way.
public enum EdgeStage {
    case cpu
    case vulkan(VulkanEdgeDetector)

    /// The Vulkan stage on `context` (pipelines are built on first use and kept).
    public static func vulkan(context: VulkanContext) throws -> EdgeStage {
        .vulkan(try VulkanEdgeDetector(context: context))
    }

    func run(_ image: Image) throws -> EdgeMap {
        switch self {
        case .cpu: DetectEdges.run(image)
        case .vulkan(let detector): try detector.run(image)
        }
    }
}
