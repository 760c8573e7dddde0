import ArgumentParser
import Foundation
import GPUStyle

struct DigitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digits",
        abstract: "Read the handwritten digit on each sticky note in a photo (Apple's \"Classifying Images with Vision and Core ML\").",
        discussion: """
        Each note is found as `detect` finds rectangles (with defaults for notes: every \
        observation, sides down to a 20th of the photo's shorter side), checked to be plain paper, \
        straightened, its ink fitted into 20x20 and centred by mass in 28x28 as the MNIST digits \
        were, and classified by the built-in MNIST network (digit-recognizer-py 0.1.0's). One line \
        per note: the digit and its confidence, "?" when the confidence is below \
        --minimum-confidence, or "blank"; then the corners in pixels (top-left first, clockwise, \
        origin at the photo's top-left corner). Exit status 1 when no note is found.

        Examples:
          gpustyle digits notes.jpg
          gpustyle digits --json --overlay labelled.png notes.jpg
          gpustyle digits --quad 120,80,300,90,290,270,110,260 photo.png
        """
    )

    @Option(help: "Below this probability (0-1) a note reads \"?\" instead of a digit.")
    var minimumConfidence: Float = NoteReader.Options().minimumConfidence

    @Flag(help: "Print JSON: {\"file\", \"width\", \"height\", \"notes\": [{\"corners\", \"digit\", \"blank\", \"confidence\", \"top3\"}]}, one line per photo.")
    var json = false

    @Option(help: "Also write the photo with each note outlined and labelled to this PNG (one photo only; not stdout, which holds the readings).")
    var overlay: String?

    @Option(help: ArgumentHelp("Also write what the classifier saw for each note (28x28, white ink on black) to this folder, as note-N.png (one photo only).",
                               valueName: "folder"))
    var glyphs: String?

    // .unconditionalSingleValue: corners may be negative.
    @Option(parsing: .unconditionalSingleValue,
            help: "Read the note at these corners x1,y1,x2,y2,x3,y3,x4,y4 (top-left, top-right, bottom-right, bottom-left) instead of finding notes; repeatable; one photo only.")
    var quad: [String] = []

    @Option(help: ArgumentHelp("The digit classifier: \(DigitClassifier.BuiltIn.allCases.map(\.rawValue).joined(separator: " or ")) (built in; \(DigitClassifier.BuiltIn.notes.rawValue), the default, is \(DigitClassifier.BuiltIn.mnist.rawValue) fine-tuned on photographed notes), or a .gpsm or ONNX file that takes a 28x28 glyph to ten scores.",
                               valueName: "name-or-file"))
    var model: String = DigitClassifier.BuiltIn.notes.rawValue

    @Option(help: "How to prepare a note's ink: mnist (bounding box into 20x20, centred by mass) or apple (the sample's: grey, contrast 32, inverted, the whole note).")
    var preprocess: String = DigitPreprocessing.Recipe.mnist.rawValue

    @Option(help: "Smallest note side, as a fraction of the photo's shorter side (0-1).")
    var minimumSize: Double = NoteReader.Options().detection.minimumSize

    @Option(help: "Smallest short-side/long-side ratio of a note (0-1).")
    var minimumAspectRatio: Double = NoteReader.Options().detection.minimumAspectRatio

    @Option(help: "Largest deviation of a note's corner from 90 degrees (0-45).")
    var quadratureTolerance: Double = NoteReader.Options().detection.quadratureTolerance

    @Option(help: "Most notes to read per photo, best found first (0 = all).")
    var maximumNotes: Int = 0

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    var options: NoteReader.Options {
        var o = NoteReader.Options()
        o.minimumConfidence = minimumConfidence
        o.preprocessing.recipe = DigitPreprocessing.Recipe(rawValue: preprocess) ?? .mnist
        o.detection.minimumSize = minimumSize
        o.detection.minimumAspectRatio = minimumAspectRatio
        o.detection.quadratureTolerance = quadratureTolerance
        o.detection.maximumObservations = maximumNotes
        return o
    }

    func validate() throws {
        try InputFiles.validate(inputs)
        guard minimumConfidence.isFinite, (0...1).contains(minimumConfidence) else {
            throw ValidationError("--minimum-confidence must be between 0 and 1")
        }
        guard DigitPreprocessing.Recipe(rawValue: preprocess) != nil else {
            throw ValidationError("--preprocess must be one of " + DigitPreprocessing.Recipe.allCases.map(\.rawValue).joined(separator: ", "))
        }
        do { try RectangleDetector.validate(options.detection) } catch { throw ValidationError("\(error)") }
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the readings)")
        }
        for q in quad { _ = try RectifyCommand.parseQuad(q) }
        if (overlay != nil || glyphs != nil || !quad.isEmpty) && (inputs.count != 1 || FileManager.default.isDirectory(inputs[0])) {
            throw ValidationError("\(overlay != nil ? "--overlay" : glyphs != nil ? "--glyphs" : "--quad") needs exactly one photo")
        }
        if let glyphs, !FileManager.default.isDirectory(glyphs) { throw ValidationError("--glyphs: \(glyphs) is not a folder") }
    }

    func run() throws {
        if let overlay { try OutputPath(overlay).check() }
        let renderer = try overlay.map { _ in try TextRenderer() }
        let warper = try deviceOptions.choose("warp", name: \.name, ComputeChoice<PerspectiveWarper>.choose)
        let classifier = try DigitClassifierSetup.make(model: model, device: deviceOptions)
        let reader = NoteReader(detector: try deviceOptions.makeDetector(), warper: warper, classifier: classifier)
        let quads = try quad.map(RectifyCommand.parseQuad)
        let key = "digits model=\(model) preprocess=\(preprocess) minimum-confidence=\(minimumConfidence) minimum-size=\(minimumSize) "
            + "minimum-aspect-ratio=\(minimumAspectRatio) quadrature-tolerance=\(quadratureTolerance) maximum-notes=\(maximumNotes)"
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { classifier.backend.name }) { file, showFile, emit in
            let image = try inputOptions.read(file, verbose: deviceOptions.verbose)
            for q in quads { try RectifyCommand.check(q, in: image) }
            let start = MonotonicClock.seconds()
            let notes = quads.isEmpty ? try reader.read(image, options: options) : try reader.read(image, quads: quads, options: options)
            if deviceOptions.verbose {
                printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(file), (MonotonicClock.seconds() - start) * 1000))
            }
            try emit(json ? DigitsReport.json(notes, file: file, width: image.width, height: image.height)
                          : DigitsReport.text(notes, file: file, showFile: showFile))
            if let glyphs {
                for (index, note) in notes.enumerated() {
                    guard let glyph = note.glyph else { continue }
                    let side = DigitPreprocessing.side
                    try ImageIO.writePNG(Image(width: side, height: side, rgb: glyph + glyph + glyph),
                                         to: (glyphs as NSString).appendingPathComponent("note-\(index + 1).png"))
                }
            }
            if let overlay, let renderer {
                try ImageIO.writePNG(DigitsReport.overlay(notes, on: image, renderer: renderer), to: overlay)
            }
            if notes.isEmpty && json { printToStandardError("\(PrintableText.escaping(file)): no note found") }
            return !notes.isEmpty
        }
    }
}

/// The classifier of `digits`, `bench --digits` and `live --digits`: a built-in model by name or a
/// user's file, on the device the options choose.
enum DigitClassifierSetup {
    static func make(model nameOrPath: String, device: DeviceChoiceOptions) throws -> DigitClassifier {
        let builtIn = DigitClassifier.BuiltIn(rawValue: nameOrPath)
        let model: ModelFile
        do {
            model = try builtIn.map { try ModelLibrary.builtin($0.modelName) } ?? ModelLibrary.load(path: nameOrPath)
        } catch {
            // A user's file is the user's error; a binary without its model is ours.
            throw CommandFailure(message: builtIn != nil ? "the digit classifier: \(error)" : "\(error)", status: builtIn != nil ? 1 : 2)
        }
        let backend = try device.backend(convolutions: [])
        do {
            return try DigitClassifier(backend: backend, model: model)
        } catch {
            throw CommandFailure(message: "\(builtIn == nil ? PrintableText.escaping(nameOrPath) : model.metadata.name): \(error)",
                                 status: builtIn != nil ? 1 : 2)
        }
    }
}
