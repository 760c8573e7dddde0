import CVulkan

extension VulkanShader {
    /// Shaders/yuv_to_rgb.comp: binding 0 the frame's bytes (R8_UINT texels), binding 1 the RGB planes.
    static let yuvToRGB = VulkanShader(name: "yuv_to_rgb",
                                       bindings: [.texels(VK_FORMAT_R8_UINT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                       pushConstantWords: 19)
}

/// The GLSL colour conversion (Shaders/yuv_to_rgb.comp) on its own `VulkanContext`: the frame's
/// bytes go up in one copy, the three planes come back. Not safe to use from two threads at once.
public final class VulkanFrameConverter: FrameConverter {
    public var context: VulkanContext { host.context }
    private let host: VulkanComputeHost

    public var name: String { host.deviceName }

    public init(context: VulkanContext) throws {
        host = VulkanComputeHost(context: context)
        _ = try host.recorder()
    }

    public func image(from frame: YUVFrame, fullRange: Bool) throws -> Image {
        let w = frame.width, h = frame.height, plane = w * h
        let (cw, ch) = frame.chroma.chromaSize(width: w, height: h)
        let inputBytes = plane + 2 * cw * ch
        let limits = context.limits
        guard inputBytes <= Int(limits.maxTexelBufferElements), 3 * plane <= Int(limits.maxTexelBufferElements),
              (w + 63) / 64 <= Int(limits.maxComputeWorkGroupCount.0), h <= Int(limits.maxComputeWorkGroupCount.1) else {
            throw VulkanError.unsupported("a \(w)x\(h) frame exceeds the device's texel buffer or workgroup limits")
        }
        // The input rounded up to a whole float, so the output planes start 4-byte aligned in staging.
        let uploadBytes = roundUp(inputBytes, 256), downloadBytes = 4 * 3 * plane
        let source = try host.buffer(0, bytes: uploadBytes), destination = try host.buffer(1, bytes: downloadBytes)
        let staging = host.staging, recorder = try host.recorder()
        try staging.reserve(bytes: uploadBytes + downloadBytes)
        let mapped = staging.mapped!
        var offset = 0
        for bytes in [frame.y, frame.u, frame.v] {
            bytes.withUnsafeBytes { mapped.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset += bytes.count
        }
        try staging.flush()

        let pipeline = try host.pipelines.pipeline(.yuvToRGB, constants: [])
        try recorder.begin()
        recorder.copy(from: VulkanBufferRange(buffer: staging.buffer!, offset: 0, size: uploadBytes), to: source, bytes: uploadBytes)
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue)
        try recorder.dispatch(pipeline,
                              buffers: [source.slice(offset: 0, size: inputBytes), destination.slice(offset: 0, size: downloadBytes)],
                              push: Self.pushConstants(frame, fullRange: fullRange), groups: ((w + 63) / 64, h, 1),
                              label: "yuv_to_rgb \(w)x\(h)")
        try host.finish(recorder, copying: destination.slice(offset: 0, size: downloadBytes), toStagingAt: uploadBytes, bytes: downloadBytes)
        let rgb = [Float](unsafeUninitializedCapacity: 3 * plane) { buffer, count in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(
                from: UnsafeRawBufferPointer(start: mapped.advanced(by: uploadBytes), count: downloadBytes))
            count = 3 * plane
        }
        return Image(width: w, height: h, rgb: rgb)
    }

    /// The shader's push constants, the same values `YUVConversion.image` computes with.
    static func pushConstants(_ frame: YUVFrame, fullRange: Bool) -> [UInt32] {
        let (cw, ch) = frame.chroma.chromaSize(width: frame.width, height: frame.height)
        let levels = YUVConversion.Levels(full: fullRange)
        let c = YUVConversion.coefficients
        let mono: Bool = { if case .mono = frame.chroma { return true } else { return false } }()
        let ints = [frame.width, frame.height, cw, ch, frame.width * frame.height, frame.width * frame.height + cw * ch,
                    frame.width * frame.height, mono ? 1 : 0, frame.chroma.factors.x, frame.chroma.factors.y,
                    YUVConversion.isCentredHorizontally(frame.chroma) ? 1 : 0, 0]
        let floats: [Float] = [levels.lumaOffset, 1 / levels.lumaScale, 1 / levels.chromaScale, c.rv, c.gu, c.gv, c.bu]
        return ints.map { UInt32(bitPattern: Int32(truncatingIfNeeded: $0)) } + floats.map(\.bitPattern)
    }
}
