import Foundation
import GPUStyle

/// The built-in classifier in `gpustyle bench --classify`: MobileNetV2 at 224x224 (network and
/// softmax, from the prepared input tensor) on every path, each path's probabilities compared
/// with the CPU path's.
struct ClassifyBench {
    let runs: Int

    /// The CPU path and, when there is one, the Vulkan device: the paths a built-in network
    /// (`--classify`, `--finder`) is timed on.
    static func networkBackends(vulkan: VulkanContext?) throws -> [(label: String, backend: NetworkBackend)] {
        var backends: [(label: String, backend: NetworkBackend)] = [("cpu", CPUBackend(weights: []))]
        if let vulkan { backends.append(("vulkan", try VulkanBackend(context: vulkan, weights: [], options: VulkanBackend.Options(.fromEnvironment())))) }
        return backends
    }

    func run(vulkan: VulkanContext?) throws -> [RectangleBench.Row] {
        var rows: [RectangleBench.Row] = []
        var reference: [Float]?
        // The input `profile --network classify` and `bench --network classify` run on.
        let input = try NetworkWorkload.make(.classify, width: 0, height: 0).inputs[.input]!
        for (label, backend) in try Self.networkBackends(vulkan: vulkan) {
            let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: backend)
            let side = classifier.preprocessing.cropSide
            var probabilities: [Float] = []
            let seconds = try RectangleBench(runs: runs).time {
                probabilities = try classifier.probabilities(tensor: input)
            }
            var row = RectangleBench.Row(work: "classify", size: "\(side)x\(side)", path: label, seconds: seconds)
            if let reference {
                let difference = zip(reference, probabilities).map { abs($0 - $1) }.max() ?? 0
                row.parity = String(format: "max|dp| %.1e", difference)
            } else {
                reference = probabilities
            }
            rows.append(row)
        }
        return rows
    }
}
