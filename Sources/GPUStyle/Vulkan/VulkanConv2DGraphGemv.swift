import CVulkan

/// Recording of a dense layer on a 1-pixel output map (conv2d_graph_gemv.comp): a graph
/// convolution whose unpadded window covers its whole input, so its one output pixel per channel
/// is a matrix-vector product over the input's channels x rows x columns.
extension VulkanBackend {
    /// Output channels per invocation (a multiple of 4). MobileNetV2's 1280 -> 1000 classifier
    /// in `gpustyle profile --network classify --device gpu` (lavapipe on AMD EPYC Zen 4, 2
    /// shared cores, alternating rounds): 4 outputs 0.41-0.82 ms, 8 0.68-0.77, 16 0.82-1.81
    /// (workgroups of 8-64 alike), conv2d_graph.comp 1.25-1.30 in the same rounds. The weights
    /// through a storage buffer of vec4s instead of the RGBA texel view: 2.10-4.07 ms (4
    /// outputs) and 1.07-1.32 (8) against 0.77-0.81 (5 rounds).
    static let gemvOutputsPerInvocation = 4

    /// Whether `conv` runs conv2d_graph_gemv.comp: one group, a 1x1 output, no padding and a
    /// window the size of the input (a fully connected layer), where neither uniform-buffer
    /// shader takes it (`minimumUniformWeightsPlane`).
    static func runsGemv(_ conv: ExecutionPlan.Conv2D) -> Bool {
        graphWeightsLayout(conv) == nil && conv.groups == 1 && conv.output.height == 1 && conv.output.width == 1
            && conv.padding == .zero && conv.kernelHeight == conv.input.height && conv.kernelWidth == conv.input.width
    }

    /// The weights [out][K] (K = inputs x kh x kw, ONNX order) packed as [K][blocks of 4 outputs]
    /// vec4s, zeros past the last output: the lanes of one fetch read consecutive vec4s.
    static func gemvWeights(_ weights: [Float], outputs: Int) -> [Float] {
        let k = weights.count / outputs, blocks = (outputs + 3) / 4
        var packed = [Float](repeating: 0, count: k * blocks * 4)
        for o in 0..<outputs {
            for i in 0..<k { packed[(i * blocks) * 4 + o] = weights[o * k + i] }
        }
        return packed
    }

    func recordConv2DGemv(_ conv: ExecutionPlan.Conv2D, weights: VulkanBufferRange, extras: VulkanBufferRange,
                          label: String) throws {
        let k = conv.input.floatCount, blocks = (conv.output.channels + 3) / 4
        let co = Self.gemvOutputsPerInvocation
        let invocations = (blocks + co / 4 - 1) / (co / 4)
        let local = graphLocalSize(invocations)
        let vectorInput = k % 4 == 0 && conv.input.offset % 4 == 0
        let vectorOutput = conv.output.channels % 4 == 0 && conv.output.offset % 4 == 0
        let r = VK_FORMAT_R32_SFLOAT, rgba = VK_FORMAT_R32G32B32A32_SFLOAT
        let shader = VulkanShader(name: vectorOutput ? "conv2d_graph_gemv_vec4" : "conv2d_graph_gemv",
                                  bindings: [.texels(vectorInput ? rgba : r), .texels(rgba), .texels(r),
                                             .storageTexels(vectorOutput ? rgba : r)],
                                  pushConstantWords: 9)
        let specialization = [local, co, vectorInput ? 1 : 0] + [Int](repeating: 0, count: 7)
            + [Int(conv.activation.kind.rawValue), conv.quantize == nil ? 0 : 1, 0, 1]
        let pipeline = try pipelines.pipeline(storing(shader, for: conv),
                                              constants: specialization.map { UInt32(bitPattern: Int32($0)) })
        try recorder.dispatch(pipeline, buffers: [binding(conv.input), weights, extras, binding(conv.output)],
                              push: [k, conv.output.channels, blocks].map(UInt32.init) + graphEpilogueWords(conv),
                              groups: ((invocations + local - 1) / local, 1, 1), label: label + " gemv")
    }
}
