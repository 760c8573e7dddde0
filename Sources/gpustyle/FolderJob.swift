import Foundation
import GPUStyle

/// `gpustyle --style N photos/ -o out/`: every PNG/JPEG in a folder, one device and one set of
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

    static let extensions: Set<String> = ["png", "jpg", "jpeg"]

    func run() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: input)
            .filter { FolderJob.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .filter { !isFolder((input as NSString).appendingPathComponent($0)) }
            .sorted()
        guard !names.isEmpty else { throw CommandFailure(message: "no PNG or JPEG files in \(input)") }
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
        var failures = 0, internalFailures = 0
        for (index, name) in names.enumerated() {
            let source = (input as NSString).appendingPathComponent(name)
            let target = (output as NSString).appendingPathComponent(targets[index])
            do {
                let image = try ImageIO.read(path: source, limits: limits)
                // The image's last use: tiled runs release its planes once they are stored compactly.
                try ImageIO.writePNG(try stylizer.stylize(consume image, mix: mix, strength: strength), to: target)
            } catch {
                // One bad photo should not stop a batch; it is reported and counted.
                failures += 1
                let userError = Main.isUserError(error) || (error as? OutputError)?.isUserError == true
                if !userError { internalFailures += 1 }
                let text = "\(error)"
                let line = text.hasPrefix(PrintableText.escaping(source)) || text.hasPrefix(PrintableText.escaping(target))
                    ? text : "\(source): \(text)"
                progress.interrupt { Main.printError(line) }
            }
            progress.update(done: index + 1, label: PrintableText.escaping(name))
        }
        progress.finish()
        if failures > 0 {
            throw CommandFailure(message: "\(failures) of \(names.count) images failed", status: internalFailures > 0 ? 1 : 2)
        }
    }

    private func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
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
