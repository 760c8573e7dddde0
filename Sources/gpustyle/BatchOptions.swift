import ArgumentParser
import Foundation
import GPUStyle

/// `--shard`, `--force` and `--summary`: one task of a batch spread over a job array (Slurm,
/// Kubernetes Indexed Jobs), resumable, with a summary the scheduler's user can read.
struct BatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Do only this task's share of the folders' files: I/N (task I of N, from 0; Kubernetes: $JOB_COMPLETION_INDEX/N), auto (a Slurm job array's task) or auto/N (a Slurm task re-run as a smaller array keeps its share). A file's share depends only on its name.",
                               valueName: "I/N|auto"))
    var shard: String?

    @Flag(help: "Redo outputs that an earlier run finished from the same input and options (by default they are skipped).")
    var force = false

    @Option(help: ArgumentHelp("Write what this run did to this JSON file: {\"shard\", \"assigned\", \"done\", \"skipped\", \"failed\", \"failures\": [{\"file\", \"error\"}], \"seconds\", \"device\"}.",
                               valueName: "file"))
    var summary: String?

    /// The shard, read with the process's environment (`auto` reads Slurm's variables).
    func resolvedShard() throws -> Shard {
        guard let shard else { return .whole }
        do {
            return try Shard.parse(shard, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure(message: "\(error)")
        }
    }

    /// Checks the summary's path before any work.
    func checkSummary() throws {
        if let summary { try OutputPath(summary).check() }
    }

    /// Writes the summary (when asked), then ends like every batch: exit status 1 when some
    /// input failed, with the count on stderr.
    func finish(_ result: BatchSummary, total: Int? = nil) throws {
        if let summary { try OutputPath(summary).write(result.json()) }
        if result.failed > 0 {
            throw CommandFailure(message: "\(result.failed) of \(total ?? result.assigned) images failed", status: 1)
        }
    }

    /// The inputs of a batch: files as given (their key is the path as given), folders as their
    /// photos (keyed by name).
    static func inputs(_ arguments: [String]) throws -> [BatchInput] {
        try arguments.flatMap { argument -> [BatchInput] in
            guard argument != "-", FileManager.default.isDirectory(argument) else { return [BatchInput(path: argument, key: argument)] }
            return try InputFiles.expand(argument).map { BatchInput(path: $0, key: ($0 as NSString).lastPathComponent) }
        }
    }
}
