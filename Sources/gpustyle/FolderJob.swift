import ArgumentParser
import Foundation
import GPUStyle

/// `gpustyle --style N photos/ -o out/`: every photo in a folder (PNG, JPEG, HEIC, AVIF, WebP), one device and one set of
/// pipelines for all of them, a progress bar when standard error is a terminal.
///
/// Outputs are named by `FolderOutputNames` (over the whole folder, checked before any work, so
/// that every task of a job array names them alike); an `-o` that is the input folder is refused
/// when an output would overwrite an input. With `--shard` only this task's share is done. The
/// run is resumable: an output an earlier run finished from the same photo and options is
/// skipped (`ResumeManifest`), unless `--force`. A photo that fails (a bad file, a failed write)
/// is reported with its name and the batch goes on; the exit status is then 1.
struct FolderJob {
    let input: String
    let output: String
    let mix: StyleMix
    let strength: Float
    let preserveColor: Bool
    let options: DeviceOptions
    let limits: DecodeLimits
    let batch: BatchOptions

    /// Names a folder's images are picked by (the reader itself goes by the bytes).
    static let extensions: Set<String> = ["png", "jpg", "jpeg", "heic", "heif", "avif", "webp"]

    /// What changes a stylized photo: the program's version, the style mix, the strength, the colour,
    /// --precision bf16 (tens of levels in places; the device and the memory budget change it by at
    /// most 1/255, and are left out).
    var optionsKey: String {
        "gpustyle \(GPUStyleCommand.configuration.version) stylize style=\(mix) strength=\(strength)\(preserveColor ? " preserve-color" : "")"
            + (ConvolutionPrecision.inUse == .bf16 ? " precision=bf16" : "")
    }

    func run() throws {
        let shard = try batch.resolvedShard()
        try batch.checkSummary()
        let names = try InputFiles.imageNames(in: input)
        guard !names.isEmpty else { throw CommandFailure(message: "no PNG, JPEG, HEIC, AVIF or WebP files in \(input)") }
        let targets: [String]
        do {
            targets = try FolderOutputNames.plan(names)
        } catch {
            throw CommandFailure(message: "\(input): \(error)")
        }
        if FolderOutputNames.sameFolder(input, output), let clash = targets.first(where: names.contains) {
            throw CommandFailure(message: "output folder \(output) is the input folder: \(clash) would overwrite the original; choose another -o folder")
        }
        try OutputFolder.create(output, verbose: options.verbose)
        let target = Dictionary(uniqueKeysWithValues: zip(names, targets))
        var job = BatchJob(inputs: names.map { BatchInput(path: (input as NSString).appendingPathComponent($0), key: $0) }, shard: shard)
        job.manifest = ResumeManifest(outputFolder: output, optionsKey: optionsKey)
        job.force = batch.force
        if options.verbose, batch.shard != nil {
            printToStandardError("shard \(shard): \(job.assigned.count) of \(names.count) photos")
        }
        // The device starts with the first photo to do: a re-run with everything finished needs none.
        var stylizer: Stylizer?
        let progress = ProgressBar(total: job.assigned.count)
        let summary = try job.run(device: stylizer?.backend.name ?? "none",
                                  outputName: { target[$0.key] },
                                  observe: { input, outcome, position in
            if case .failed(let error) = outcome {
                if let setup = error as? DeviceSetupFailure { throw setup.error }  // not the photo's fault: stop
                let line = FailureLine.text(error, file: input.path, alsoNamed: [(output as NSString).appendingPathComponent(target[input.key]!)])
                progress.interrupt { Main.printError(line) }
            }
            progress.update(done: position, label: PrintableText.escaping(input.key))
        }) { input in
            let image = try InputOptions.read(input.path, limits: limits, verbose: options.verbose)
            if stylizer == nil {
                do { stylizer = try options.makeStylizer() } catch { throw DeviceSetupFailure(error: error) }
            }
            // The image's last use: tiled runs release its planes once they are stored compactly.
            try ImageIO.writePNG(try stylizer!.stylize(consume image, mix: mix, strength: strength, preserveColor: preserveColor),
                                 to: (output as NSString).appendingPathComponent(target[input.key]!))
        }
        progress.finish()
        if options.verbose, summary.skipped > 0 {
            printToStandardError("\(summary.skipped) of \(summary.assigned) photos were finished by an earlier run (--force redoes them)")
        }
        try batch.finish(summary)
    }
}

/// A folder the outputs of a batch go into (`-o`, `--report-folder`): made when missing (with its
/// parents), refused when the path is something else.
enum OutputFolder {
    static func create(_ folder: String, verbose: Bool) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandFailure(message: "output \(PrintableText.escaping(folder)) exists and is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot create output folder \(PrintableText.escaping(folder)): \(error.localizedDescription)")
        }
        if verbose { printToStandardError("created output folder \(PrintableText.escaping(folder))") }
    }
}

/// A device that could not be set up during a batch: the batch stops with its error.
struct DeviceSetupFailure: Error, CustomStringConvertible {
    let error: Error
    var description: String { "\(error)" }
}

/// The line on stderr for an input of a batch that failed: the error, naming `file` unless the
/// message already starts with it or with one of `alsoNamed` (e.g. the output it is about).
enum FailureLine {
    static func text(_ error: Error, file: String, alsoNamed: [String] = []) -> String {
        let text = "\(error)"
        return ([file] + alsoNamed).contains { text.hasPrefix(PrintableText.escaping($0)) } ? text : "\(file): \(text)"
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal.
final class ProgressBar {
    let total: Int
    private let enabled = isatty(STDERR_FILENO) == 1
    private let start = MonotonicClock.seconds()

    init(total: Int) { self.total = total }

    func update(done: Int, label: String) {
        guard enabled else { return }
        let width = 30
        let filled = width * done / max(total, 1)
        let elapsed = MonotonicClock.seconds() - start
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(Data(String(format: "\r[%@] %d/%d %.1fs %@\u{1B}[K", bar, done, total, elapsed, label).utf8))
    }

    /// Prints a line without mangling the bar.
    func interrupt(_ body: () -> Void) {
        if enabled { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        body()
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
