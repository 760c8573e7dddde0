import ArgumentParser
import Foundation
import GPUStyle

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Name what a photo shows (scene classification, like Vision's VNClassifyImageRequest).",
        discussion: """
        The built-in model is MobileNetV2 trained on ImageNet-1k (1000 classes, torchvision's \
        weights). The photo is prepared as torchvision does: the shorter side resized to 256 with \
        an antialiased bilinear filter, the centre 224x224 kept, each channel normalised by \
        ImageNet's mean and standard deviation. Several files or folders (every PNG and JPEG in \
        them) may be given; a file that fails is reported and the others go on.
        """
    )

    @Option(help: "How many classes to print, most likely first.")
    var top = 5

    @Flag(help: "Print JSON: {\"file\", \"classifications\": [{\"index\", \"label\", \"confidence\"}]}, one line per file.")
    var json = false

    @Option(help: ArgumentHelp("Use this model instead of the built-in one: a .gpsm file (gpustyle convert-model) or an ONNX classifier.",
                               valueName: "file"))
    var model: String?

    @Option(help: ArgumentHelp("Class names for --model, one per line (an ONNX file carries none).", valueName: "file"))
    var labels: String?

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "CPU kernels") var instructionSet: InstructionSetOption

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    func validate() throws {
        try InputFiles.validate(inputs)
        guard top >= 1 else { throw ValidationError("--top must be at least 1") }
        if labels != nil && model == nil { throw ValidationError("--labels names the classes of --model; the built-in model has its own") }
    }

    func run() throws {
        try instructionSet.apply()
        let classifier = try ClassifierSetup.make(model: model, labels: labels, device: deviceOptions)
        let key = "classify model=\(model ?? "built-in") labels=\(labels ?? "") top=\(top)"
            + (ConvolutionPrecision.inUse == .bf16 ? " precision=bf16" : "")
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { classifier.backend.name }) { file, showFile, emit in
                let image = try inputOptions.read(file, verbose: deviceOptions.verbose)
                let start = MonotonicClock.seconds()
                let answer = try classifier.classify(image, top: top)
                if deviceOptions.verbose {
                    printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(file), (MonotonicClock.seconds() - start) * 1000))
                }
                try emit(json ? try ClassificationReport.json(answer, file: file)
                              : ClassificationReport.text(answer, file: file, showFile: showFile))
                return true
        }
    }
}

/// The classifier of `classify` and `live --classify`: `--model` (with `--labels`) or the
/// built-in one, on the device the options choose.
enum ClassifierSetup {
    static func make(model path: String?, labels: String?, device: DeviceChoiceOptions) throws -> ImageClassifier {
        let model: ModelFile
        do {
            model = try path.map { try ModelLibrary.load(path: $0, labels: labels) }
                ?? ModelLibrary.builtin(ModelLibrary.defaultClassifier)
        } catch {
            // A user's file is the user's error; a binary without its model is ours.
            throw CommandFailure(message: path == nil ? "the scene classifier: \(error)" : "\(error)", status: path == nil ? 1 : 2)
        }
        let backend = try device.backend(convolutions: [])
        do {
            return try ImageClassifier(model: model, backend: backend)
        } catch {
            throw CommandFailure(message: "\(path ?? model.metadata.name): \(error)")
        }
    }
}

/// Command-line inputs as files: a folder stands for its PNG and JPEG files (sorted by name).
enum InputFiles {
    /// The photo arguments of `classify`, `digits` and `faces`: at least one, stdin (-) at most once.
    static func validate(_ inputs: [String]) throws {
        guard !inputs.isEmpty else { throw ValidationError("give a photo, a folder or -") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("stdin (-) can be read only once") }
    }

    static func expand(_ path: String) throws -> [String] {
        guard path != "-", FileManager.default.isDirectory(path) else { return [path] }
        let files: [String]
        do {
            files = try imageNames(in: path).map { (path as NSString).appendingPathComponent($0) }
        } catch {
            throw CommandFailure(message: "\(PrintableText.escaping(path)): cannot list the folder (\(error.localizedDescription))")
        }
        guard !files.isEmpty else { throw CommandFailure(message: "no PNG, JPEG, HEIC, AVIF or WebP files in \(PrintableText.escaping(path))") }
        return files
    }

    /// The PNG and JPEG files of a folder (by extension; subfolders left out), sorted by name.
    static func imageNames(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { FolderJob.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .filter { !FileManager.default.isDirectory((folder as NSString).appendingPathComponent($0)) }
            .sorted()
    }
}

extension FileManager {
    /// Whether `path` is a folder (following symbolic links).
    func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
