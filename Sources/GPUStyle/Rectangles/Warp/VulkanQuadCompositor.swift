import CVulkan

extension VulkanShader {
    /// Shaders/composite_quad.comp: binding 0 the overlay planes, binding 1 the photo's region
    /// planes (texels), binding 2 the composited region planes.
    static let compositeQuad = VulkanShader(name: "composite_quad",
                                            bindings: [.texels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32_SFLOAT),
                                                       .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                            pushConstantWords: 31)
}

/// The GLSL composite kernel (back-warp and blend fused into one dispatch) on a shared
/// `VulkanContext`: one submit per call, uploading the overlay and only the photo's region and
/// downloading only the region. Pipelines, buffers and staging live in a `VulkanComputeHost`,
/// kept and grown across calls; creating a compositor cannot fail (InPlaceStylizer's
/// initialiser does not throw). Not safe to use from two threads at once.
public final class VulkanQuadCompositor: QuadCompositor {
    public var context: VulkanContext { host.context }
    private let host: VulkanComputeHost
    private var staging: VulkanStagingBuffer { host.staging }
    /// Largest range one binding may cover (tests lower it to force one dispatch per plane).
    var maxBindingBytes: Int

    public var name: String { host.deviceName }

    public init(context: VulkanContext) {
        host = VulkanComputeHost(context: context)
        maxBindingBytes = context.maxBindingBytes
    }

    public func composite(_ overlay: Image, photoToOverlay: Homography, mask: QuadMask, over photo: Image) throws -> Image {
        precondition(overlay.width > 0 && overlay.height > 0, "empty overlay")
        let region = mask.region(width: photo.width, height: photo.height)
        guard region.width > 0, region.height > 0 else { return photo }
        // Planes 256-byte aligned so a chunk of planes is a valid binding offset.
        let srcCount = overlay.width * overlay.height, regionCount = region.width * region.height
        let srcStride = roundUp(srcCount, 64), regionStride = roundUp(regionCount, 64)
        let planesPerDispatch = min(3, maxBindingBytes / (4 * max(srcStride, regionStride)))
        guard planesPerDispatch > 0 else {
            throw VulkanError.unsupported("a \(max(srcCount, regionCount))-pixel plane exceeds the device's buffer range (\(maxBindingBytes) bytes)")
        }
        let groups = (x: (region.width + 63) / 64, y: region.height)
        guard groups.x <= Int(context.limits.maxComputeWorkGroupCount.0), groups.y <= Int(context.limits.maxComputeWorkGroupCount.1) else {
            throw VulkanError.unsupported("a \(region.width)x\(region.height) composite needs more workgroups than the device allows")
        }

        let overlayBytes = 4 * 3 * srcStride, regionBytes = 4 * 3 * regionStride
        // The overlay's planes followed by the photo region's (one upload copy).
        let input = try host.buffer(0, bytes: overlayBytes + regionBytes), output = try host.buffer(1, bytes: regionBytes)
        let uploadBytes = overlayBytes + regionBytes
        try staging.reserve(bytes: uploadBytes + regionBytes)
        upload(overlay, photo, region: region, srcStride: srcStride, regionStride: regionStride)
        try staging.flush()

        let push = Self.pushConstants(overlay: overlay, photoToOverlay: photoToOverlay, mask: mask, region: region,
                                      srcStride: srcStride, regionStride: regionStride)
        let pipeline = try host.pipelines.pipeline(.compositeQuad)
        let recorder = try host.recorder()
        let stagingBuffer = staging.buffer!
        try recorder.begin()
        recorder.copy(from: VulkanBufferRange(buffer: stagingBuffer, offset: 0, size: uploadBytes), to: input, bytes: uploadBytes)
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue)
        for first in stride(from: 0, to: 3, by: planesPerDispatch) {
            let count = min(planesPerDispatch, 3 - first)
            var words = push
            words[6] = UInt32(count)
            try recorder.dispatch(pipeline,
                                  buffers: [input.slice(offset: 4 * first * srcStride, size: 4 * count * srcStride),
                                            input.slice(offset: overlayBytes + 4 * first * regionStride, size: 4 * count * regionStride),
                                            output.slice(offset: 4 * first * regionStride, size: 4 * count * regionStride)],
                                  push: words, groups: (groups.x, groups.y, 1),
                                  label: "composite_quad \(region.width)x\(region.height) planes \(first)..<\(first + count)")
        }
        try host.finish(recorder, copying: output, toStagingAt: uploadBytes, bytes: regionBytes)
        return download(over: photo, region: region, from: uploadBytes, regionStride: regionStride)
    }

    /// Staging layout: overlay planes, then the photo's region planes (rows gathered), each plane
    /// `srcStride` / `regionStride` floats apart.
    private func upload(_ overlay: Image, _ photo: Image, region: (x: Int, y: Int, width: Int, height: Int),
                        srcStride: Int, regionStride: Int) {
        let mapped = staging.mapped!
        let srcCount = overlay.width * overlay.height
        overlay.rgb.withUnsafeBytes { rgb in
            for c in 0..<3 {
                mapped.advanced(by: 4 * c * srcStride).copyMemory(from: rgb.baseAddress!.advanced(by: 4 * c * srcCount), byteCount: 4 * srcCount)
            }
        }
        let regionStart = mapped.advanced(by: 4 * 3 * srcStride)
        photo.rgb.withUnsafeBytes { rgb in
            for c in 0..<3 {
                for j in 0..<region.height {
                    let from = ((c * photo.height + region.y + j) * photo.width + region.x) * 4
                    regionStart.advanced(by: 4 * (c * regionStride + j * region.width))
                        .copyMemory(from: rgb.baseAddress!.advanced(by: from), byteCount: 4 * region.width)
                }
            }
        }
    }

    /// The photo with the composited region (at byte `offset` of staging) written back in place.
    private func download(over photo: Image, region: (x: Int, y: Int, width: Int, height: Int), from offset: Int,
                          regionStride: Int) -> Image {
        let result = staging.mapped!.advanced(by: offset)
        var rgb = photo.rgb
        rgb.withUnsafeMutableBytes { out in
            for c in 0..<3 {
                for j in 0..<region.height {
                    let to = ((c * photo.height + region.y + j) * photo.width + region.x) * 4
                    out.baseAddress!.advanced(by: to)
                        .copyMemory(from: result.advanced(by: 4 * (c * regionStride + j * region.width)), byteCount: 4 * region.width)
                }
            }
        }
        return Image(width: photo.width, height: photo.height, rgb: rgb, alpha: photo.alpha)
    }

    /// The shader's push constants: sizes, the local matrix (`VulkanLocalHomography`), the mask's
    /// edges with offsets relative to the region's middle pixel, and the feather width.
    static func pushConstants(overlay: Image, photoToOverlay: Homography, mask: QuadMask,
                              region: (x: Int, y: Int, width: Int, height: Int), srcStride: Int, regionStride: Int) -> [UInt32] {
        let local = VulkanLocalHomography(photoToOverlay, sourceWidth: overlay.width, sourceHeight: overlay.height,
                                          width: region.width, height: region.height, originX: region.x, originY: region.y)
        let ints = [overlay.width, overlay.height, srcStride, region.width, region.height, regionStride, 3]
        // The same integer split as the shader's `regionWidth / 2` (both non-negative).
        let middleX = Double(region.x + region.width / 2), middleY = Double(region.y + region.height / 2)
        let edges = mask.edges.flatMap { e in [e.nx, e.ny, e.c + e.nx * middleX + e.ny * middleY] }
        return ints.map { UInt32(bitPattern: Int32(truncatingIfNeeded: $0)) } + local.words
            + (edges + [mask.feather]).map { Float($0).bitPattern }
    }
}
