import ArgumentParser
import GPUStyle

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the compute paths: Vulkan devices (for --gpu-id) and the CPU path."
    )

    func run() throws {
        let model = try StyleModel.bundled()
        try StandardOutput.print("cpu: \(CPUBackend(weights: model.convolutions).name)")
        do {
            let devices = try VulkanContext.devices(options: .fromEnvironment())
            if devices.isEmpty { try StandardOutput.print("vulkan: no devices") }
            for device in devices { try StandardOutput.print("vulkan: \(device)") }
        } catch {
            try StandardOutput.print("vulkan: unavailable (\(error))")
        }
        let choice = try ComputeChoice<NetworkBackend>.choose(.fromEnvironment(device: .auto), model: model)
        try StandardOutput.print("--device auto picks: \(choice.stage.name) — \(choice.reason)")
    }
}
