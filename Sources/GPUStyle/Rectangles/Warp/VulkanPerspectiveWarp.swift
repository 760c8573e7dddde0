import CVulkan

extension VulkanShader {
    /// Shaders/warp_perspective.comp: binding 0 the source planes (texels), binding 1 the output planes.
    static let warpPerspective = VulkanShader(name: "warp_perspective",
                                              bindings: [.texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                              pushConstantWords: 21)
}

/// The GLSL warp kernel on a shared `VulkanContext` (its pipelines, buffers and staging in a
/// `VulkanComputeHost`, kept and grown across calls). Not safe to use from two threads at once.
public final class VulkanPerspectiveWarper: PerspectiveWarper {
    public var context: VulkanContext { host.context }
    private let host: VulkanComputeHost
    /// Largest range one binding may cover (tests lower it to force one dispatch per plane).
    var maxBindingBytes: Int

    public var name: String { host.deviceName }

    public init(context: VulkanContext) throws {
        host = VulkanComputeHost(context: context)
        maxBindingBytes = context.maxBindingBytes
        _ = try host.recorder()
    }

    public func warp(_ source: Image, outputToSource: Homography, width: Int, height: Int,
                     originX: Int = 0, originY: Int = 0, interpolation: WarpInterpolation = .bilinear) throws -> Image {
        precondition(width >= 0 && height >= 0, "negative output size")
        precondition(source.width > 0 && source.height > 0, "empty source image")
        let planes = source.alpha == nil ? 3 : 4
        guard width > 0, height > 0 else {
            return Image(width: width, height: height, rgb: [], alpha: source.alpha == nil ? nil : [])
        }
        // Planes 256-byte aligned so a chunk of planes is a valid binding offset.
        let srcCount = source.width * source.height, dstCount = width * height
        let srcStride = roundUp(srcCount, 64), dstStride = roundUp(dstCount, 64)
        let planesPerDispatch = min(planes, maxBindingBytes / (4 * max(srcStride, dstStride)))
        guard planesPerDispatch > 0 else {
            throw VulkanError.unsupported("a \(max(srcCount, dstCount))-pixel plane exceeds the device's buffer range (\(maxBindingBytes) bytes)")
        }
        guard (width + 63) / 64 <= Int(context.limits.maxComputeWorkGroupCount.0), height <= Int(context.limits.maxComputeWorkGroupCount.1) else {
            throw VulkanError.unsupported("a \(width)x\(height) warp needs more workgroups than the device allows")
        }

        let src = try host.buffer(0, bytes: 4 * planes * srcStride), dst = try host.buffer(1, bytes: 4 * planes * dstStride)
        let staging = host.staging, recorder = try host.recorder()
        let uploadBytes = 4 * planes * srcStride, downloadBytes = 4 * planes * dstStride
        try staging.reserve(bytes: uploadBytes + downloadBytes)
        let mapped = staging.mapped!
        source.rgb.withUnsafeBytes { rgb in
            for c in 0..<3 {
                mapped.advanced(by: 4 * c * srcStride).copyMemory(from: rgb.baseAddress!.advanced(by: 4 * c * srcCount), byteCount: 4 * srcCount)
            }
        }
        source.alpha?.withUnsafeBytes { a in
            mapped.advanced(by: 4 * 3 * srcStride).copyMemory(from: a.baseAddress!, byteCount: 4 * srcCount)
        }
        try staging.flush()

        let push = Self.pushConstants(source: source, homography: outputToSource, width: width, height: height,
                                      originX: originX, originY: originY, srcStride: srcStride, dstStride: dstStride)
        let pipeline = try host.pipelines.pipeline(.warpPerspective, constants: [interpolation == .bicubic ? 1 : 0])
        let stagingBuffer = staging.buffer!
        try recorder.begin()
        recorder.copy(from: VulkanBufferRange(buffer: stagingBuffer, offset: 0, size: uploadBytes), to: src, bytes: uploadBytes)
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue)
        for first in stride(from: 0, to: planes, by: planesPerDispatch) {
            let count = min(planesPerDispatch, planes - first)
            var words = push
            words[8] = UInt32(count)
            try recorder.dispatch(pipeline,
                                  buffers: [src.slice(offset: 4 * first * srcStride, size: 4 * count * srcStride),
                                            dst.slice(offset: 4 * first * dstStride, size: 4 * count * dstStride)],
                                  push: words, groups: ((width + 63) / 64, height, 1),
                                  label: "warp_perspective \(width)x\(height) planes \(first)..<\(first + count)")
        }
        try host.finish(recorder, copying: dst, toStagingAt: uploadBytes, bytes: downloadBytes)

        func plane(_ c: Int) -> [Float] {
            [Float](unsafeUninitializedCapacity: dstCount) { buffer, count in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(start: mapped.advanced(by: uploadBytes + 4 * c * dstStride), count: 4 * dstCount))
                count = dstCount
            }
        }
        var rgb = [Float]()
        rgb.reserveCapacity(3 * dstCount)
        for c in 0..<3 { rgb += plane(c) }
        return Image(width: width, height: height, rgb: rgb, alpha: planes == 4 ? plane(3) : nil)
    }

    /// The shader's push constants: sizes, then the matrix made local (`VulkanLocalHomography`).
    static func pushConstants(source: Image, homography: Homography, width: Int, height: Int, originX: Int, originY: Int,
                              srcStride: Int, dstStride: Int) -> [UInt32] {
        let local = VulkanLocalHomography(homography, sourceWidth: source.width, sourceHeight: source.height,
                                          width: width, height: height, originX: originX, originY: originY)
        let ints = [source.width, source.height, srcStride, width, height, dstStride, originX, originY,
                    source.alpha == nil ? 3 : 4, 0]
        return ints.map { UInt32(bitPattern: Int32(truncatingIfNeeded: $0)) } + local.words
    }
}
