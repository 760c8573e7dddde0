import ArgumentParser
import Foundation
import GPUStyle

/// The batch options of the commands that report what they find in photos (classify, detect,
/// digits, faces, text, analyze): `BatchOptions`, and a folder of reports that makes a run
/// resumable.
struct ReportBatchOptions: ParsableArguments {
    @OptionGroup var batch: BatchOptions

    @Option(help: ArgumentHelp("Write each photo's report to this folder as NAME.json (with --json) or NAME.txt instead of standard output (photo.jpg: photo.jpg.json). A report finished by an earlier run from the same photo and options is skipped.",
                                valueName: "folder"))
    var reportFolder: String?

    var isBatch: Bool { batch.shard != nil || batch.force || batch.summary != nil || reportFolder != nil }
}

/// The photo loop of the reporting commands: this task's share of the photos (`--shard`), each
/// reported on standard output or into `--report-folder` (skipping the reports an earlier run
/// finished), a photo that fails reported with its name while the others go on.
///
/// Exit status: 0 when every photo was done and something was found in each, 1 when some photo
/// failed (listed, and in `--summary`) or had nothing found; a single photo's own error is the
/// command's (2 for a bad file). Standard output failing ends the batch.
struct ReportBatch {
    let arguments: [String]
    let options: ReportBatchOptions
    let json: Bool
    /// What changes a report: the command and its options.
    let optionsKey: String

    /// How the command tells a report: one photo alone prints no file names.
    var inputs: [BatchInput] {
        get throws { try BatchOptions.inputs(arguments) }
    }

    /// Runs `body(file, showFile, emit)` on each photo of this task; `emit` takes the report's
    /// lines; `body` returns whether anything was found. `device` names the device in the summary.
    func run(device: () -> String, _ body: (_ file: String, _ showFile: Bool, _ emit: (String) throws -> Void) throws -> Bool) throws {
        let shard = try options.batch.resolvedShard()
        try options.batch.checkSummary()
        let inputs = try self.inputs
        let single = inputs.count == 1 && !options.isBatch && !FileManager.default.isDirectory(arguments[0])
        var job = BatchJob(inputs: inputs, shard: shard)
        var names: [String: String] = [:]
        if let folder = options.reportFolder {
            names = try reportNames(inputs)
            try OutputFolder.create(folder, verbose: false)
            job.manifest = ResumeManifest(outputFolder: folder, optionsKey: "gpustyle \(GPUStyleCommand.configuration.version) \(optionsKey)\(json ? " --json" : "")")
            job.force = options.batch.force
        }
        var empty = 0
        let summary = try job.run(device: device(), outputName: { names[$0.key] }, observe: { input, outcome, _ in
            guard case .failed(let error) = outcome else { return }
            if let gone = error as? StandardOutputGone { throw gone.error }
            if single { throw error }
            Main.printError(FailureLine.text(error, file: input.path))
        }) { input in
            var lines: [String] = []
            let found = try body(input.path, inputs.count > 1) { text in
                if options.reportFolder != nil {
                    lines.append(text)
                } else {
                    do { try StandardOutput.print(text) } catch { throw StandardOutputGone(error: error) }
                }
            }
            if let folder = options.reportFolder, let name = names[input.key] {
                try OutputPath((folder as NSString).appendingPathComponent(name)).write(Data((lines.joined(separator: "\n") + "\n").utf8))
            }
            if !found { empty += 1 }
        }
        try options.batch.finish(summary)
        if empty > 0 { throw ExitCode(1) }
    }

    /// Each photo's report name: its name with .json or .txt added; two photos of one name (in
    /// two folders) are refused before any work.
    private func reportNames(_ inputs: [BatchInput]) throws -> [String: String] {
        var names: [String: String] = [:]
        var owners: [String: String] = [:]
        for input in inputs {
            guard input.path != "-" else { throw CommandFailure(message: "--report-folder needs files, not stdin") }
            let name = (input.key as NSString).lastPathComponent + (json ? ".json" : ".txt")
            if let other = owners[name], other != input.path {
                throw CommandFailure(message: "\(PrintableText.escaping(other)) and \(PrintableText.escaping(input.path)) would both be reported as \(PrintableText.escaping(name)) in --report-folder; give one folder at a time")
            }
            owners[name] = input.path
            names[input.key] = name
        }
        return names
    }
}

/// Standard output failed: nothing more can be reported.
struct StandardOutputGone: Error {
    let error: Error
}
