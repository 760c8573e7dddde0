import Foundation
import PackagePlugin

/// Compiles every GLSL compute shader in `Shaders/` to SPIR-V and embeds it, together with
/// the converted network weights in `Weights/`, as generated Swift source. A shader that does
/// not compile therefore fails `swift build`, and the binary needs no files at run time.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let embedder = try context.tool(named: "ResourceEmbedder").url
        let root = context.package.directoryURL
        let shaderDir = root.appending(path: "Shaders")
        let weightsDir = root.appending(path: "Weights")
        let out = context.pluginWorkDirectoryURL

        let fm = FileManager.default
        let shaderFiles = try fm.contentsOfDirectory(atPath: shaderDir.path())
            .sorted()
            .map { shaderDir.appending(path: $0) }
        let stages = shaderFiles.filter { $0.pathExtension == "comp" }
        let weights = try fm.contentsOfDirectory(atPath: weightsDir.path())
            .sorted()
            .filter { $0.hasSuffix(".gpsw") || $0.hasSuffix(".gpsm") }
            .map { weightsDir.appending(path: $0) }

        let shaderSwift = out.appending(path: "EmbeddedShaders.swift")
        let weightsSwift = out.appending(path: "EmbeddedWeights.swift")
        return [
            .buildCommand(
                displayName: "Compiling \(stages.count) compute shaders to SPIR-V",
                executable: embedder,
                arguments: ["shaders", shaderDir.path(), shaderSwift.path()] + stages.map { $0.path() },
                inputFiles: shaderFiles,
                outputFiles: [shaderSwift]
            ),
            .buildCommand(
                displayName: "Embedding network weights",
                executable: embedder,
                arguments: ["weights", weightsSwift.path()] + weights.map { $0.path() },
                inputFiles: weights,
                outputFiles: [weightsSwift]
            ),
        ]
    }
}
