import ArgumentParser
import Foundation
import GPUStyle

/// `gpustyle --style N photos/ -o out/`: every photo in a folder (PNG, JPEG, HEIC, AVIF, WebP), one device and one set of
/// pipelines for all of them, a progress bar when standard error is a terminal.
///
/// Outputs are named by `FolderOutputNames` (checked before any work); an `-o` that is the input
/// folder is refused when an output would overwrite an input. A photo that fails (a bad file, a
/// failed write) is reported with its name and the batch goes on; the exit status then says
/// some failed: 2 when all failures were bad inputs, 1 when one was a write or internal error.
struct FolderJob {
    let input: String
    let output: String
    let mix: StyleMix
    let strength: Float
    let options: DeviceOptions
    let limits: DecodeLimits

    /// Names a folder's images are picked by (the reader itself goes by the bytes).
    static let extensions: Set<String> = ["png", "jpg", "jpeg", "heic", "heif", "avif", "webp"]

    func run() throws {
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
        try createOutputFolder()
        let stylizer = try options.makeStylizer()
        let progress = ProgressBar(total: names.count)
        var failures = BatchFailures()
        for (index, name) in names.enumerated() {
            let source = (input as NSString).appendingPathComponent(name)
            let target = (output as NSString).appendingPathComponent(targets[index])
            do {
                let image = try InputOptions.read(source, limits: limits, verbose: options.verbose)
                // The image's last use: tiled runs release its planes once they are stored compactly.
                try ImageIO.writePNG(try stylizer.stylize(consume image, mix: mix, strength: strength), to: target)
            } catch {
                // One bad photo should not stop a batch; it is reported and counted.
                let line = failures.record(error, file: source, alsoNamed: [target])
                progress.interrupt { Main.printError(line) }
            }
            progress.update(done: index + 1, label: PrintableText.escaping(name))
        }
        progress.finish()
        try failures.finish(total: names.count)
    }

    private func createOutputFolder() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandFailure(message: "output \(output) exists and is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(message: "cannot create output folder \(output): \(error.localizedDescription)")
        }
        if options.verbose { printToStandardError("created output folder \(PrintableText.escaping(output))") }
    }
}

/// The failures of a batch (a folder, several inputs): each is reported with its file's name and
/// the batch goes on; at the end the exit status says some failed: 2 when all were bad inputs,
/// 1 when one was a write or internal error.
struct BatchFailures {
    private(set) var count = 0
    private var internalCount = 0

    /// Counts `error` and returns its line for stderr, which names `file` unless the message
    /// already starts with it or with one of `alsoNamed` (e.g. the output the error is about).
    mutating func record(_ error: Error, file: String, alsoNamed: [String] = []) -> String {
        count += 1
        if !(Main.isUserError(error) || (error as? OutputError)?.isUserError == true) { internalCount += 1 }
        let text = "\(error)"
        return ([file] + alsoNamed).contains { text.hasPrefix(PrintableText.escaping($0)) } ? text : "\(file): \(text)"
    }

    /// Throws the summary ("2 of 9 images failed") when anything failed.
    func finish(total: Int) throws {
        guard count > 0 else { return }
        throw CommandFailure(message: "\(count) of \(total) images failed", status: internalCount > 0 ? 1 : 2)
    }
}

extension BatchFailures {
    /// The per-photo loop of the commands that read photos and report what they find (digits,
    /// faces): `body` handles one file and says whether it found anything. A file that fails
    /// among several is reported and the others go on; a failure to write stdout or an output
    /// ends the loop; exit status 1 when some photo had nothing (as `detect`).
    static func forEach(_ files: [String], _ body: (String) throws -> Bool) throws {
        var failures = BatchFailures()
        var empty = 0
        for file in files {
            do {
                if try !body(file) { empty += 1 }
            } catch let error as OutputError {
                throw error  // stdout or an output is gone: nothing more can be reported
            } catch {
                if files.count == 1 { throw error }
                Main.printError(failures.record(error, file: file))
            }
        }
        try failures.finish(total: files.count)
        if empty > 0 { throw ExitCode(1) }
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
