import Foundation
import GPUStyle

/// `gpustyle --style N photos/ -o out/`: every PNG/JPEG in a folder, one device and one set of
/// pipelines for all of them, a progress bar when standard error is a terminal.
struct FolderJob {
    let input: String
    let output: String
    let mix: StyleMix
    let strength: Float
    let options: DeviceOptions

    static let extensions: Set<String> = ["png", "jpg", "jpeg"]

    func run() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: input)
            .filter { FolderJob.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        guard !names.isEmpty else { throw CommandFailure(message: "no PNG or JPEG files in \(input)") }
        try createOutputFolder()
        let stylizer = try options.makeStylizer()
        let progress = ProgressBar(total: names.count)
        var failures = 0
        for (index, name) in names.enumerated() {
            let source = (input as NSString).appendingPathComponent(name)
            let target = (output as NSString).appendingPathComponent((name as NSString).deletingPathExtension + ".png")
            do {
                let image = try ImageIO.read(path: source)
                try ImageIO.writePNG(try stylizer.stylize(image, mix: mix, strength: strength), to: target)
            } catch {
                // One bad photo should not stop a batch; it is reported and counted.
                failures += 1
                progress.interrupt { printToStandardError("gpustyle: \(error)") }
            }
            progress.update(done: index + 1, label: name)
        }
        progress.finish()
        if failures > 0 {
            throw CommandFailure(message: "\(failures) of \(names.count) images failed", status: 2)
        }
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
