import ArgumentParser
import Foundation
import GPUStyle

struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run several requests on one photo: rectangles, faces, classify, digits (like Vision's perform([...])).",
        discussion: """
        The photo is decoded once; each request reads the same pixels with its command's defaults, \
        and the requests run together (rectangles and digits, faces, classify on their own \
        threads and backends). --json prints one object with every request's \
        results (each as its own command prints them) and the time each took; --overlay draws \
        them all.

        Examples:
          gpustyle analyze --requests rectangles,faces,classify photo.jpg
          gpustyle analyze --requests faces,digits --json --overlay all.png photo.jpg
        """
    )

    @Option(help: ArgumentHelp("Comma-separated requests: \(ImageAnalyzer.Request.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "list"))
    var requests: String = "rectangles,faces,classify"

    @Flag(help: "Print JSON: {\"file\", \"width\", \"height\", \"requests\", \"rectangles\", \"faces\", \"classifications\", \"notes\", \"milliseconds\"}.")
    var json = false

    @Option(help: "Also write the photo with every result drawn to this PNG.")
    var overlay: String?

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @Argument(help: "Photo (PNG, JPEG, HEIC, AVIF or WebP), or - for stdin.")
    var input: String

    var requestList: [ImageAnalyzer.Request] {
        get throws {
            var list: [ImageAnalyzer.Request] = []
            for name in requests.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let request = ImageAnalyzer.Request(rawValue: name) else {
                    throw ValidationError("--requests: \(name.isEmpty ? "an empty name" : "'\(name)'") is not one of "
                                          + ImageAnalyzer.Request.allCases.map(\.rawValue).joined(separator: ", "))
                }
                if !list.contains(request) { list.append(request) }
            }
            return list
        }
    }

    func validate() throws {
        _ = try requestList
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the results)")
        }
    }

    func run() throws {
        if let overlay { try OutputPath(overlay).check() }
        let requests = try requestList
        let renderer = try overlay.map { _ in try TextRenderer() }
        let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
        // One backend per lane (`ImageAnalyzer`): rectangles and digits, faces, classify run together.
        func backend() throws -> NetworkBackend { try deviceOptions.backend(convolutions: []) }
        func needs(_ r: ImageAnalyzer.Request) -> Bool { requests.contains(r) }
        let analyzer: ImageAnalyzer
        do {
            // One detector for the rectangles and the notes (its edge stage is chosen and made once).
            let detector = try deviceOptions.makeDetector()
            let faceBackend = needs(.faces) ? try backend() : nil
            let faceDetector = try faceBackend.map { try FaceDetector(backend: $0) }
            let landmarker = try faceBackend.map { try FaceLandmarker(backend: $0) }
            let classifier = needs(.classify) ? try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: backend()) : nil
            let noteReader = needs(.digits)
                ? NoteReader(detector: detector,
                             warper: try deviceOptions.choose("warp", name: \.name, ComputeChoice<PerspectiveWarper>.choose),
                             classifier: try DigitClassifier(backend: backend()))
                : nil
            analyzer = ImageAnalyzer(detector: detector, faceDetector: faceDetector, landmarker: landmarker,
                                     classifier: classifier, noteReader: noteReader)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "a built-in model: \(error)", status: 1)  // the binary's models: not the user's fault
        }
        let start = MonotonicClock.seconds()
        let result = try analyzer.analyze(image, requests: requests)
        if deviceOptions.verbose {
            printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(input), (MonotonicClock.seconds() - start) * 1000))
        }
        try StandardOutput.print(json ? try jsonText(result, requests: requests, image: image) : text(result, requests: requests))
        if let overlay, let renderer {
            try ImageIO.writePNG(ImageAnalyzer.overlay(result, on: image, renderer: renderer), to: overlay)
        }
    }

    func jsonText(_ r: ImageAnalyzer.Result, requests: [ImageAnalyzer.Request], image: Image) throws -> String {
        var object: [String: Any] = ["file": input, "width": image.width, "height": image.height, "requests": requests.map(\.rawValue),
                                     "milliseconds": Dictionary(uniqueKeysWithValues: r.seconds.map { ($0.key.rawValue, $0.value * 1000) })]
        if let rectangles = r.rectangles { object["rectangles"] = DetectionReport.items(rectangles, width: image.width, height: image.height) }
        if let faces = r.faces { object["faces"] = FacesReport.items(faces, meshes: r.meshes ?? [], width: image.width, height: image.height) }
        if let classes = r.classifications { object["classifications"] = try ClassificationReport.items(classes) }
        if let notes = r.notes { object["notes"] = DigitsReport.items(notes) }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    func text(_ r: ImageAnalyzer.Result, requests: [ImageAnalyzer.Request]) -> String {
        func indented(_ s: String) -> String { s.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") }
        return requests.map { request -> String in
            switch request {
            case .rectangles:
                let list = r.rectangles ?? []
                return "rectangles:\n" + indented(DetectionReport.text(list, width: 0, height: 0))
            case .faces:
                return "faces:\n" + indented(FacesReport.text(r.faces ?? [], file: input, showFile: false, landmarks: false))
            case .classify:
                return "classify:\n" + ClassificationReport.text(r.classifications ?? [], file: input, showFile: false)
            case .digits:
                return "digits:\n" + indented(DigitsReport.text(r.notes ?? [], file: input, showFile: false))
            }
        }.joined(separator: "\n")
    }
}
