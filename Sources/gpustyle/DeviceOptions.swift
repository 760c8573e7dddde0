import ArgumentParser
import GPUStyle

enum DeviceName: String, ExpressibleByArgument, CaseIterable {
    case auto, gpu, cpu
}

/// `--device`, `--gpu-id` and `--verbose`: where a network runs (every command that runs one).
struct DeviceChoiceOptions: ParsableArguments {
    @Option(help: "Where to run: auto (a real GPU if present, else the CPU path), gpu (Vulkan), or cpu.")
    var device: DeviceName = .auto

    @Option(name: .customLong("gpu-id"), help: "Vulkan device index (see `gpustyle devices`); implies --device gpu unless --device is given.")
    var gpuID: Int?

    @Flag(name: .shortAndLong, help: "Say which path was chosen and why, and time each image.")
    var verbose = false

    var preference: DevicePreference {
        switch device {
        case .cpu: return .cpu
        case .gpu: return .gpu(index: gpuID)
        case .auto: return gpuID.map { .gpu(index: $0) } ?? .auto
        }
    }

    /// The environment's options (`ComputeOptions.fromEnvironment`) with this device preference.
    var compute: ComputeOptions { .fromEnvironment(device: preference) }

    /// Picks the backend, printing warnings (always) and the reason (under --verbose).
    func choose(convolutions: [ConvolutionWeights]) throws -> DeviceChoice {
        let choice: DeviceChoice
        do {
            choice = try DeviceSelector.choose(compute, convolutions: convolutions)
        } catch {
            // Only an explicit GPU request reaches here: auto always has the CPU path.
            throw CommandFailure(message: "GPU requested but unusable: \(error)")
        }
        choice.warnings.forEach(printToStandardError)
        if verbose { printToStandardError("device: \(choice.backend.name) — \(choice.reason)") }
        return choice
    }
}

/// The device choice and `--max-memory`, shared by the commands that run the style network.
struct DeviceOptions: ParsableArguments {
    @OptionGroup var choice: DeviceChoiceOptions

    @Option(name: .customLong("max-memory"), help: ArgumentHelp(
        "Memory one image may use, e.g. 800M or 2G; larger images run in tiles (same result within 1/255).",
        discussion: "Default: half of the memory available (cgroup limit included), at most 4G."),
            transform: MemorySize.parse)
    var maxMemory: Int?

    var device: DeviceName { choice.device }
    var gpuID: Int? { choice.gpuID }
    var verbose: Bool { choice.verbose }
    var preference: DevicePreference { choice.preference }
    var compute: ComputeOptions { choice.compute }

    /// Creates the backend, printing warnings (always) and the reason (under --verbose).
    func makeStylizer() throws -> Stylizer {
        let model = try StyleModel.bundled()
        let choice = try choice.choose(convolutions: model.convolutions)
        let stylizer = Stylizer(model: model, backend: choice.backend)
        stylizer.memoryBudget = maxMemory ?? MemoryBudget.defaultBudget()
        if verbose, maxMemory == nil {
            printToStandardError("memory budget: \(ByteCount.decimal(stylizer.memoryBudget!)) (--max-memory)")
        }
        return stylizer
    }
}
