import CVulkan
import Foundation

/// How a shader reads one binding.
enum VulkanBindingKind: Hashable {
    case storage
    case uniform
    /// An array of `count` uniform buffers at one binding, indexed in the shader.
    case uniforms(Int)
    /// A uniform texel buffer (`samplerBuffer`) over a buffer range, in the given format.
    case texels(VkFormat)
    /// A storage texel buffer (`imageBuffer`) over a buffer range, in the given format.
    case storageTexels(VkFormat)

    var format: VkFormat? {
        switch self {
        case .texels(let f), .storageTexels(let f): f
        case .storage, .uniform, .uniforms: nil
        }
    }

    /// Descriptors at the binding (buffers a dispatch gives it).
    var count: Int { if case .uniforms(let n) = self { n } else { 1 } }

    var descriptorType: VkDescriptorType {
        switch self {
        case .storage: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        case .uniform, .uniforms: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
        case .texels: VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
        case .storageTexels: VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
        }
    }
}

extension VkFormat: @retroactive Hashable {}

/// A compute shader's interface: its embedded SPIR-V name, what it binds at bindings 0..<n,
/// and the size of its push-constant block (all fields are 32-bit).
struct VulkanShader: Hashable {
    let name: String
    let bindings: [VulkanBindingKind]
    let pushConstantWords: Int

    // Every shader reads and writes tensors through texel views (see conv2d for why).
    /// This shader with the texel bindings flagged in `half` (one flag per binding) viewed as
    /// 16-bit floats, R16/R16G16B16A16_SFLOAT: tensors in fp16 storage. Reads need only the view
    /// format (texel fetches convert); a half storage binding needs the "_f16" SPIR-V build, whose
    /// image format matches. All-false returns the shader unchanged.
    func storing(half: [Bool]) -> VulkanShader {
        precondition(half.count == bindings.count, "one flag per binding of \(name)")
        guard half.contains(true) else { return self }
        let halfOutputs = zip(bindings, half).filter { if case .storageTexels = $0.0 { true } else { false } }.map(\.1)
        precondition(Set(halfOutputs).count <= 1, "\(name): storage bindings must share one precision")
        let mapped = zip(bindings, half).map { kind, half -> VulkanBindingKind in
            guard half else { return kind }
            switch kind {
            case .texels(let f): return .texels(Self.halfFormat(f))
            case .storageTexels(let f): return .storageTexels(Self.halfFormat(f))
            case .storage, .uniform, .uniforms: preconditionFailure("\(name): only texel bindings can be fp16")
            }
        }
        return VulkanShader(name: halfOutputs.first == true ? name + "_f16" : name, bindings: mapped,
                            pushConstantWords: pushConstantWords)
    }

    static func halfFormat(_ format: VkFormat) -> VkFormat {
        switch format {
        case VK_FORMAT_R32_SFLOAT: VK_FORMAT_R16_SFLOAT
        case VK_FORMAT_R32G32B32A32_SFLOAT: VK_FORMAT_R16G16B16A16_SFLOAT
        default: preconditionFailure("no fp16 counterpart for format \(format.rawValue)")
        }
    }

    static let pad = VulkanShader(name: "pad", bindings: [.texels(VK_FORMAT_R32_SFLOAT), .storageTexels(VK_FORMAT_R32G32B32A32_SFLOAT)],
                                  pushConstantWords: 15)
    /// Why not storage buffers for the inputs: lavapipe (Mesa 22) compiles every storage-buffer
    /// load into a branchy per-invocation loop (~30 cycles per float per invocation), while
    /// texel fetches are vector gathers and uniform-buffer loads at a workgroup-uniform address
    /// are one scalar load. With storage buffers for inputs and weights, convolutions ran at
    /// 1-2 GFLOP/s. The output is a float storage texel buffer for the same reason.
    static let conv2d = VulkanShader(name: "conv2d",
                                     bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .uniform, .storageTexels(VK_FORMAT_R32_SFLOAT)],
                                     pushConstantWords: 12)
    static let instanceNormStatistics = VulkanShader(name: "instance_norm_statistics", bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .uniform, .storage],
                                        pushConstantWords: 5)
    /// instance_norm_statistics with subgroupAdd: only where `VulkanContext.subgroupArithmetic`.
    static let instanceNormStatisticsSubgroup = VulkanShader(name: "instance_norm_statistics_subgroup",
                                        bindings: instanceNormStatistics.bindings, pushConstantWords: 5)
    static let instanceNormApply = VulkanShader(name: "instance_norm_apply",
                                        bindings: [.texels(VK_FORMAT_R32G32B32A32_SFLOAT), .storageTexels(VK_FORMAT_R32G32B32A32_SFLOAT),
                                                   .texels(VK_FORMAT_R32G32B32A32_SFLOAT), .uniform],
                                        pushConstantWords: 6)
}

/// A compute pipeline and the layouts it was built with.
struct VulkanPipeline {
    let shader: VulkanShader
    let pipeline: VkPipeline
    let layout: VkPipelineLayout
    let setLayout: VkDescriptorSetLayout
}

/// Pipelines created once per (shader, specialization constants) and kept for the context's
/// life: lavapipe compiles at pipeline creation/first dispatch, which costs tens of ms each.
final class VulkanPipelineCache {
    private struct Key: Hashable {
        let shader: VulkanShader
        let constants: [UInt32]
    }

    private struct Layouts {
        let setLayout: VkDescriptorSetLayout
        let pipelineLayout: VkPipelineLayout
        let module: VkShaderModule
    }

    private let context: VulkanContext
    private var layouts: [VulkanShader: Layouts] = [:]
    private var pipelines: [Key: VulkanPipeline] = [:]

    init(context: VulkanContext) { self.context = context }

    deinit {
        let vk = context.vk, device = context.device
        for pipeline in pipelines.values { vk.destroyPipeline(device, pipeline.pipeline, nil) }
        for l in layouts.values {
            vk.destroyShaderModule(device, l.module, nil)
            vk.destroyPipelineLayout(device, l.pipelineLayout, nil)
            vk.destroyDescriptorSetLayout(device, l.setLayout, nil)
        }
    }

    var count: Int { pipelines.count }
    /// The shaders (SPIR-V builds) this cache has made pipelines of: tests check which build ran.
    var shaderNames: Set<String> { Set(layouts.keys.map(\.name)) }

    /// The pipeline for `shader` with specialization constants 0..<n set to `constants`.
    func pipeline(_ shader: VulkanShader, constants: [UInt32] = []) throws -> VulkanPipeline {
        let key = Key(shader: shader, constants: constants)
        if let cached = pipelines[key] { return cached }
        let l = try layouts(for: shader)
        var entries = constants.indices.map { i in
            VkSpecializationMapEntry(constantID: UInt32(i), offset: UInt32(4 * i), size: 4)
        }
        var data = constants
        var pipeline: VkPipeline?
        try "main".withCString { entryName in
            try entries.withUnsafeMutableBufferPointer { entryPointer in
                try data.withUnsafeMutableBytes { dataPointer in
                    var specialization = VkSpecializationInfo(mapEntryCount: UInt32(constants.count),
                                                              pMapEntries: entryPointer.baseAddress,
                                                              dataSize: dataPointer.count, pData: dataPointer.baseAddress)
                    try withUnsafePointer(to: &specialization) { specializationPointer in
                        var stage = VkPipelineShaderStageCreateInfo()
                        stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
                        stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
                        stage.module = l.module
                        stage.pName = entryName
                        stage.pSpecializationInfo = constants.isEmpty ? nil : specializationPointer
                        var info = VkComputePipelineCreateInfo()
                        info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
                        info.stage = stage
                        info.layout = l.pipelineLayout
                        try vkCheck(context.vk.createComputePipelines(context.device, nil, 1, &info, nil, &pipeline),
                                    "vkCreateComputePipelines(\(shader.name))")
                    }
                }
            }
        }
        let result = VulkanPipeline(shader: shader, pipeline: pipeline!, layout: l.pipelineLayout, setLayout: l.setLayout)
        pipelines[key] = result
        return result
    }

    private func layouts(for shader: VulkanShader) throws -> Layouts {
        if let cached = layouts[shader] { return cached }
        let vk = context.vk, device = context.device
        guard let encoded = EmbeddedShaders.base64[shader.name], let spirv = Data(base64Encoded: encoded) else {
            throw VulkanError.unsupported("shader \(shader.name) is missing from this build")
        }
        var module: VkShaderModule?
        try spirv.withUnsafeBytes { bytes in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = bytes.count
            info.pCode = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
            try vkCheck(vk.createShaderModule(device, &info, nil, &module), "vkCreateShaderModule(\(shader.name))")
        }

        var bindings = shader.bindings.enumerated().map { i, kind in
            VkDescriptorSetLayoutBinding(binding: UInt32(i), descriptorType: kind.descriptorType,
                                         descriptorCount: UInt32(kind.count), stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue,
                                         pImmutableSamplers: nil)
        }
        var setLayout: VkDescriptorSetLayout?
        try bindings.withUnsafeMutableBufferPointer { pointer in
            var info = VkDescriptorSetLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            info.bindingCount = UInt32(pointer.count)
            info.pBindings = UnsafePointer(pointer.baseAddress)
            try vkCheck(vk.createDescriptorSetLayout(device, &info, nil, &setLayout), "vkCreateDescriptorSetLayout")
        }

        var range = VkPushConstantRange(stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue, offset: 0,
                                        size: UInt32(4 * shader.pushConstantWords))
        var pipelineLayout: VkPipelineLayout?
        var setLayoutVar = setLayout
        try withUnsafePointer(to: &setLayoutVar) { setLayoutPointer in
            try withUnsafePointer(to: &range) { rangePointer in
                var info = VkPipelineLayoutCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
                info.setLayoutCount = 1
                info.pSetLayouts = setLayoutPointer
                info.pushConstantRangeCount = shader.pushConstantWords > 0 ? 1 : 0
                info.pPushConstantRanges = rangePointer
                try vkCheck(vk.createPipelineLayout(device, &info, nil, &pipelineLayout), "vkCreatePipelineLayout")
            }
        }
        let result = Layouts(setLayout: setLayout!, pipelineLayout: pipelineLayout!, module: module!)
        layouts[shader] = result
        return result
    }
}
