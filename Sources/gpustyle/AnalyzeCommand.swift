import ArgumentParser
import Foundation
import GPUStyle

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run several requests on each photo: \(catalogue.names.map(\.rawValue).joined(separator: ", ")) (like Vision's perform([...])).",
        discussion: """
        The photo is decoded once; each request reads the same pixels with its command's defaults, \
        and the requests run together (rectangles and digits, faces, classify, text on their own \
        threads and backends). --json prints one object with every request's \
        results (each as its own command prints them) and the time each took; --overlay draws \
        them all.

        Examples:
          gpustyle analyze --requests rectangles,faces,classify photo.jpg
          gpustyle analyze --requests faces,digits --json --overlay all.png photo.jpg
          gpustyle analyze --requests rectangles,text sign.jpg
        """
    )

    /// The requests this command knows.
    static var catalogue: AnalysisCatalogue { .builtin }

    @Option(help: ArgumentHelp("Comma-separated requests: \(catalogue.names.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "list"))
    var requests: String = "rectangles,faces,classify"

    @Flag(help: ArgumentHelp("Print JSON: {\"file\", \"width\", \"height\", \"requests\", "
                             + catalogue.types.map { "\"\($0.jsonKey)\", " }.joined() + "\"milliseconds\"}."))
    var json = false

    @Option(help: "Also write the photo with every result drawn to this PNG.")
    var overlay: String?

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    var requestList: [RequestName] {
        get throws {
            do {
                return try Self.catalogue.parse(requests)
            } catch let unknown as AnalysisCatalogue.UnknownRequest {
                throw ValidationError("--requests: \(unknown)")
            }
        }
    }

    func validate() throws {
        _ = try requestList
        try InputFiles.validate(inputs)
        if overlay != nil && (inputs.count != 1 || FileManager.default.isDirectory(inputs[0])) {
            throw ValidationError("--overlay needs exactly one photo")
        }
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the results)")
        }
    }

    func run() throws {
        if let overlay { try OutputPath(overlay).check() }
        let requests = try requestList
        let renderer = try overlay.map { _ in try TextRenderer() }
        let analyzer: ImageAnalyzer
        do {
            // One backend per request that runs a network, so one per lane (`ImageAnalyzer`);
            // one detector for the rectangles and the notes (its edge stage is chosen and made once).
            let stages = AnalysisStages(backend: { [deviceOptions] in try deviceOptions.backend(convolutions: []) },
                                        detector: { [deviceOptions] in try deviceOptions.makeDetector() },
                                        warper: { [deviceOptions] in
                                            try deviceOptions.choose("warp", name: \.name, ComputeChoice<PerspectiveWarper>.choose)
                                        })
            analyzer = ImageAnalyzer(try Self.catalogue.make(requests, stages: stages))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "a built-in model: \(error)", status: 1)  // the binary's models: not the user's fault
        }
        let key = "analyze requests=\(requests.map(\.rawValue).joined(separator: ","))"
        // Each request names its own device in --verbose; the summary names the one asked for.
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { deviceOptions.device.rawValue }) { input, _, emit in
            let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
            let start = MonotonicClock.seconds()
            let result = try analyzer.analyze(image)
            if deviceOptions.verbose {
                printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(input), (MonotonicClock.seconds() - start) * 1000))
            }
            try emit(json ? try result.json(file: input, width: image.width, height: image.height) : result.text(file: input))
            if let overlay, let renderer {
                try ImageIO.writePNG(result.overlay(on: image, renderer: renderer), to: overlay)
            }
            return true
        }
    }
}
