import ArgumentParser
import Foundation
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

    /// The one way the commands choose where a stage runs: `make` is the library's
    /// `ComputeChoice<Stage>.choose` for the stage (`NetworkBackend`, `EdgeStage`,
    /// `PerspectiveWarper`, `FrameConverter`), given this `compute`. Prints the choice's warnings
    /// (always; a warning whose cause was already reported for another stage, such as a missing
    /// Vulkan loader, only once) and, under --verbose, "what: stage — reason". An explicit GPU
    /// request that cannot be met is a `CommandFailure` naming `what`.
    func choose<Stage>(_ what: String, name: (Stage) -> String,
                       _ make: (ComputeOptions) throws -> ComputeChoice<Stage>) throws -> Stage {
        let choice: ComputeChoice<Stage>
        do {
            choice = try make(compute)
        } catch {
            // Only an explicit GPU request reaches here: auto always has the CPU path.
            throw CommandFailure(message: "GPU requested but unusable for the \(what): \(error)")
        }
        choice.warnings.forEach(ChoiceWarnings.shared.print)
        if verbose { printToStandardError("\(what): \(name(choice.stage)) — \(choice.reason)") }
        return choice.stage
    }

    /// The backend for a network (`ComputeChoice<NetworkBackend>.choose`).
    func backend(convolutions: [ConvolutionWeights]) throws -> NetworkBackend {
        try choose("network", name: \.name) { try ComputeChoice<NetworkBackend>.choose($0, convolutions: convolutions) }
    }

    /// A rectangle detector whose edge front runs where --device says
    /// (`ComputeChoice<EdgeStage>.choose`: auto keeps it on the CPU when the only Vulkan device
    /// is a CPU implementation), with the learned picture finder on the network backend
    /// (`FinderFusion`).
    func makeDetector() throws -> RectangleDetector {
        let detector = RectangleDetector()
        detector.edgeStage = try choose("edge stage", name: \.name, ComputeChoice<EdgeStage>.choose)
        detector.finder = LearnedDetection(finder: try PictureFinder(backend: try backend(convolutions: [])))
        return detector
    }
}

/// The start-up warnings printed so far: under auto on a machine without Vulkan each stage's
/// choice (network, edge stage, warp) carries the same "Vulkan unavailable" cause, which the
/// user needs to read once.
final class ChoiceWarnings: @unchecked Sendable {
    static let shared = ChoiceWarnings()
    private let lock = NSLock()
    private var causes: Set<String> = []

    /// Prints `warning` unless one with the same cause (the text before "; using") was printed.
    func print(_ warning: String) {
        let cause = warning.range(of: "; using").map { String(warning[..<$0.lowerBound]) } ?? warning
        guard lock.withLock({ causes.insert(cause).inserted }) else { return }
        printToStandardError(warning)
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

    func choose<Stage>(_ what: String, name: (Stage) -> String,
                       _ make: (ComputeOptions) throws -> ComputeChoice<Stage>) throws -> Stage {
        try choice.choose(what, name: name, make)
    }

    func makeDetector() throws -> RectangleDetector { try choice.makeDetector() }

    /// Creates the backend, printing warnings (always) and the reason (under --verbose).
    func makeStylizer() throws -> Stylizer {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: try choice.backend(convolutions: model.convolutions))
        stylizer.memoryBudget = maxMemory ?? MemoryBudget.defaultBudget()
        if verbose, maxMemory == nil {
            printToStandardError("memory budget: \(ByteCount.decimal(stylizer.memoryBudget!)) (--max-memory)")
        }
        return stylizer
    }
}
