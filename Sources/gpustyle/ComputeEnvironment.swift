import Foundation
import GPUStyle

extension ComputeOptions {
    /// The only place the binary reads its GPUSTYLE_VULKAN_* variables (the library reads none):
    /// - GPUSTYLE_VULKAN_LOADER=path: the Vulkan loader to open (tests point it nowhere to
    ///   simulate a machine without Vulkan); empty or unset: `libvulkan.so.1`.
    /// - GPUSTYLE_VULKAN_VALIDATION=1: the validation layer on every Vulkan context.
    /// - GPUSTYLE_VULKAN_FP16=1: fp16 storage of intermediate tensors on Vulkan (every network).
    /// - GPUSTYLE_VULKAN_FAULT=device-lost: every queue submission fails; =no-fp16: the device
    ///   reports no 16-bit float texel formats; =no-int64: the device reports no shaderInt64 (test hooks).
    /// `device` stays `.auto`; the commands set it from --device/--gpu-id.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ComputeOptions {
        var options = ComputeOptions()
        if let loader = environment["GPUSTYLE_VULKAN_LOADER"], !loader.isEmpty { options.vulkanLoader = loader }
        options.validation = environment["GPUSTYLE_VULKAN_VALIDATION"] == "1"
        options.fp16Storage = environment["GPUSTYLE_VULKAN_FP16"] == "1"
        options.fault = environment["GPUSTYLE_VULKAN_FAULT"].flatMap(Fault.init(rawValue:))
        return options
    }

    /// The environment's options with `device` set.
    static func fromEnvironment(device: DevicePreference) -> ComputeOptions {
        var options = fromEnvironment()
        options.device = device
        return options
    }
}
