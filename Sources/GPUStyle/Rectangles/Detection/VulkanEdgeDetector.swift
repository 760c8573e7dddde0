import CVulkan
import Foundation

extension VulkanShader {
    /// Shaders/detect_channels.comp (specialization constant 0: the box size, or 0 for the
    /// generic path): binding 0 the image's r, g, b planes as vec4 texels, binding 1 the three
    /// channel planes.
    static let detectChannels = VulkanShader(name: "detect_channels",
                                             bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                             pushConstantWords: 16)
    /// Shaders/detect_blur.comp (specialization constant 0: 0 rows, 1 columns).
    static let detectBlur = VulkanShader(name: "detect_blur",
                                         bindings: [.texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                         pushConstantWords: 2)
    /// Shaders/detect_gradient.comp: three blurred channel planes → magnitude, gx, gy planes.
    static let detectGradient = VulkanShader(name: "detect_gradient",
                                             bindings: [.texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                             pushConstantWords: 3)
    /// Shaders/detect_nms.comp: magnitude, gx, gy planes → thin edges above the low threshold.
    static let detectNMS = VulkanShader(name: "detect_nms",
                                        bindings: [.texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                        pushConstantWords: 6)
}

/// The GLSL kernels of the rectangle detector's pixel-parallel front (`DetectEdges`): channels,
/// blur, Sobel and non-maximum suppression on a shared `VulkanContext`, giving the same
/// `EdgeMap` as `DetectEdges.run` (bit-identical on lavapipe; see the shaders).
///
/// Two submissions per image: (1) upload, channels → row blur → column blur (per channel) →
/// Sobel, download of
/// magnitude/gx/gy (the `EdgeMap` needs them on the host anyway); the host then computes the
/// thresholds from the magnitude histogram with the CPU's own `DetectEdges.thresholds`;
/// (2) non-maximum suppression with the low threshold as a push constant, download of the edges
/// (a small second round trip: one dispatch and one plane).
///
/// Pipelines, device buffers and staging live in a `VulkanComputeHost`, kept and grown across
/// calls. Not safe to use from two threads at once.
public final class VulkanEdgeDetector {
    public var context: VulkanContext { host.context }
    private let host: VulkanComputeHost

    public var name: String { host.deviceName }

    public init(context: VulkanContext) throws {
        host = VulkanComputeHost(context: context)
        _ = try host.recorder()
    }

    /// Same as `DetectEdges.run(image)`.
    func run(_ image: Image) throws -> EdgeMap {
        try stages(image, intermediates: false).map
    }

    /// The edge map, and with `intermediates` also the channels and the blurred channels (for
    /// tests; one plane per channel).
    func stages(_ image: Image, intermediates: Bool) throws -> (map: EdgeMap, channels: [[Float]], blurred: [[Float]]) {
        precondition(image.width > 0 && image.height > 0, "empty image")
        let scale = DetectEdges.scale(width: image.width, height: image.height)
        let w = image.width / scale, h = image.height / scale
        precondition(w >= 3 && h >= 3, "image too small for the edge stages")

        // Layout (floats, 64-float = 256-byte aligned planes): source r, g, b | 3 channels |
        // 3 temp | 3 blurred | magnitude, gx, gy | edges. Source rows are padded to a multiple of 4 floats
        // and planes have 4 * scale floats of slack (detect_channels reads 4-aligned vec4 runs).
        let srcCount = image.width * image.height, count = w * h
        let srcRowStride = roundUp(image.width, 4)
        let srcStride = roundUp(srcRowStride * image.height + 4 * scale, 64), stride = roundUp(count, 64)
        let maxTexels = Int(context.limits.maxTexelBufferElements)
        guard 3 * srcStride / 4 <= maxTexels, 3 * stride <= maxTexels else {
            throw VulkanError.unsupported("a \(image.width)x\(image.height) image exceeds the device's texel buffer size (\(maxTexels) texels)")
        }
        guard (w + 63) / 64 <= Int(context.limits.maxComputeWorkGroupCount.0), h <= Int(context.limits.maxComputeWorkGroupCount.1) else {
            throw VulkanError.unsupported("a \(w)x\(h) edge map needs more workgroups than the device allows")
        }
        let channelsAt = 3 * srcStride, tempAt = channelsAt + 3 * stride, blurredAt = tempAt + 3 * stride
        let gradientAt = blurredAt + 3 * stride, edgesAt = gradientAt + 3 * stride, total = edgesAt + stride
        let device = try host.buffer(0, bytes: 4 * total)
        let staging = host.staging, pipelines = host.pipelines, recorder = try host.recorder()
        func range(_ at: Int, _ floats: Int) -> VulkanBufferRange { device.slice(offset: 4 * at, size: 4 * floats) }

        // Staging: upload | magnitude, gx, gy | edges | 3 channels | 3 blurred.
        let upload = 3 * srcStride, downGradient = upload, downEdges = downGradient + 3 * stride
        let downChannels = downEdges + stride, downBlurred = downChannels + 3 * stride
        try staging.reserve(bytes: 4 * (downBlurred + 3 * stride))
        let mapped = staging.mapped!
        image.rgb.withUnsafeBytes { rgb in
            for c in 0..<3 {
                let plane = rgb.baseAddress!.advanced(by: 4 * c * srcCount), target = mapped.advanced(by: 4 * c * srcStride)
                if srcRowStride == image.width {
                    target.copyMemory(from: plane, byteCount: 4 * srcCount)
                } else {
                    for y in 0..<image.height {
                        target.advanced(by: 4 * y * srcRowStride).copyMemory(from: plane.advanced(by: 4 * y * image.width),
                                                                             byteCount: 4 * image.width)
                    }
                }
            }
        }
        try staging.flush()
        let stagingBuffer = staging.buffer!
        func stage(_ at: Int, _ floats: Int) -> VulkanBufferRange {
            VulkanBufferRange(buffer: stagingBuffer, offset: 4 * at, size: 4 * floats)
        }
        func words(_ ints: [Int], _ floats: [Float] = []) -> [UInt32] {
            ints.map { UInt32(bitPattern: Int32(truncatingIfNeeded: $0)) } + floats.map(\.bitPattern)
        }
        let groups = ((w + 63) / 64, h, 1)

        // Submission 1: channels → blur rows → blur columns → Sobel, then download.
        let weights = DetectEdges.channelWeights.flatMap { [$0.r, $0.g, $0.b] }
        try recorder.begin()
        recorder.copy(from: stage(0, upload), to: range(0, upload), bytes: 4 * upload)
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue)
        // Unrolled 4-pixel kernel up to 8x8 boxes (inputs up to 3840 px); the generic one beyond.
        let unrolled = scale <= 8
        try recorder.dispatch(try pipelines.pipeline(.detectChannels, constants: [UInt32(unrolled ? scale : 0)]),
                              buffers: [range(0, 3 * srcStride), range(channelsAt, 3 * stride)],
                              push: words([srcRowStride, srcStride, w, h, scale, stride], weights + [1 / Float(scale * scale)]),
                              groups: (unrolled ? (w + 255) / 256 : (w + 63) / 64, h, 1),
                              label: "detect_channels \(image.width)x\(image.height) → \(w)x\(h)")
        recorder.barrier()
        for c in 0..<3 {
            try recorder.dispatch(try pipelines.pipeline(.detectBlur, constants: [0]),
                                  buffers: [range(channelsAt + c * stride, stride), range(tempAt + c * stride, stride)],
                                  push: words([w, h]), groups: groups, label: "detect_blur rows \(w)x\(h) channel \(c)")
        }
        recorder.barrier()
        for c in 0..<3 {
            try recorder.dispatch(try pipelines.pipeline(.detectBlur, constants: [1]),
                                  buffers: [range(tempAt + c * stride, stride), range(blurredAt + c * stride, stride)],
                                  push: words([w, h]), groups: groups, label: "detect_blur columns \(w)x\(h) channel \(c)")
        }
        recorder.barrier()
        try recorder.dispatch(try pipelines.pipeline(.detectGradient), buffers: [range(blurredAt, 3 * stride), range(gradientAt, 3 * stride)],
                              push: words([w, h, stride]), groups: groups, label: "detect_gradient \(w)x\(h)")
        recorder.barrier(destinationStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, destinationAccess: VK_ACCESS_TRANSFER_READ_BIT.rawValue)
        recorder.copy(from: range(gradientAt, 3 * stride), to: stage(downGradient, 3 * stride), bytes: 4 * 3 * stride)
        if intermediates {
            recorder.copy(from: range(channelsAt, 3 * stride), to: stage(downChannels, 3 * stride), bytes: 4 * 3 * stride)
            recorder.copy(from: range(blurredAt, 3 * stride), to: stage(downBlurred, 3 * stride), bytes: 4 * 3 * stride)
        }
        recorder.barrier(sourceStage: VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue, sourceAccess: VK_ACCESS_TRANSFER_WRITE_BIT.rawValue,
                         destinationStage: VK_PIPELINE_STAGE_HOST_BIT.rawValue, destinationAccess: VK_ACCESS_HOST_READ_BIT.rawValue)
        try recorder.submitAndWait()
        try staging.invalidate()

        func plane(_ at: Int) -> [Float] {
            [Float](unsafeUninitializedCapacity: count) { buffer, n in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(start: mapped.advanced(by: 4 * at), count: 4 * count))
                n = count
            }
        }
        let magnitude = plane(downGradient), gx = plane(downGradient + stride), gy = plane(downGradient + 2 * stride)
        let (low, high) = DetectEdges.thresholds(magnitude)

        // Submission 2: non-maximum suppression with the host's low threshold.
        try recorder.begin()
        try recorder.dispatch(try pipelines.pipeline(.detectNMS), buffers: [range(gradientAt, 3 * stride), range(edgesAt, stride)],
                              push: words([w, h, stride], [low, Self.tan22, Self.tan67]), groups: groups,
                              label: "detect_nms \(w)x\(h)")
        try host.finish(recorder, copying: range(edgesAt, stride), toStagingAt: 4 * downEdges, bytes: 4 * stride)

        let map = EdgeMap(width: w, height: h, scale: scale, magnitude: magnitude, gx: gx, gy: gy, edges: plane(downEdges),
                          strongThreshold: high)
        func planes(_ at: Int) -> [[Float]] { intermediates ? (0..<3).map { plane(at + $0 * stride) } : [] }
        return (map, planes(downChannels), planes(downBlurred))
    }

    /// The CPU kernels' constants as Float values, pushed as bit patterns so the shaders use
    /// exactly the same numbers (GLSL literals go through double; Swift's through Float80).
    static let tan22 = Float(0.41421356), tan67 = Float(2.41421356)
}
