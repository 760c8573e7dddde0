import ArgumentParser
import Foundation
import GPUStyle

/// Vision's VNDetectRectanglesRequest parameters, with its names and defaults.
struct RectangleOptions: ParsableArguments {
    @Option(help: "Smallest short-side/long-side ratio (0-1).")
    var minimumAspectRatio: Double = 0.5
    @Option(help: "Largest short-side/long-side ratio (0-1).")
    var maximumAspectRatio: Double = 1.0
    @Option(help: "Largest deviation of a corner from 90 degrees (0-45).")
    var quadratureTolerance: Double = 30
    @Option(help: "Smallest rectangle side, as a fraction of the image's shorter side (0-1).")
    var minimumSize: Double = 0.2
    @Option(help: ArgumentHelp("Drop observations below this confidence (0-1).",
                               discussion: "The confidence is the measured chance that the observation is right (corners within 10 px): the first observation's is 0.68-0.97, a later one's mostly below 0.06 unless its edges are complete. docs/speed.md, \"Confidence\", has the precision/recall curve."))
    var minimumConfidence: Double = 0
    @Option(help: "Most observations to return, best first (0 = all, at most 256).")
    var maximumObservations: Int = 1

    var options: RectangleDetectionOptions {
        var o = RectangleDetectionOptions()
        o.minimumAspectRatio = minimumAspectRatio
        o.maximumAspectRatio = maximumAspectRatio
        o.quadratureTolerance = quadratureTolerance
        o.minimumSize = minimumSize
        o.minimumConfidence = minimumConfidence
        o.maximumObservations = maximumObservations
        return o
    }

    func validate() throws {
        do { try RectangleDetector.validate(options) } catch { throw ValidationError("\(error)") }
    }

    /// Whether any option differs from Vision's default (commands where detection may not run
    /// reject them then, rather than ignore them).
    var isCustomized: Bool {
        let d = RectangleDetectionOptions(), o = options
        return o.minimumAspectRatio != d.minimumAspectRatio || o.maximumAspectRatio != d.maximumAspectRatio
            || o.quadratureTolerance != d.quadratureTolerance || o.minimumSize != d.minimumSize
            || o.minimumConfidence != d.minimumConfidence || o.maximumObservations != d.maximumObservations
    }
}

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find rectangles (posters, picture frames, notes) like Vision's VNDetectRectanglesRequest.",
        discussion: """
        Corners are printed top-left, top-right, bottom-right, bottom-left, in pixel coordinates
        with the origin at the image's top-left corner and pixel centres at integers. The
        normalized corners use Vision's convention: 0-1 of the width and height, origin at the
        bottom-left, y up. Exit status 1 when no rectangle is found.
        """
    )

    @OptionGroup var rectangle: RectangleOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup var deviceOptions: DeviceChoiceOptions

    @OptionGroup(title: "Folders on many machines") var batchOptions: ReportBatchOptions

    @Flag(help: "Print JSON: {\"file\", \"width\", \"height\", \"observations\", \"milliseconds\"}, one line per photo.")
    var json = false

    @Option(help: "Also write the photo with the rectangles drawn on it to this PNG (a file, FIFO or device: stdout holds the observations).")
    var overlay: String?

    @Option(help: ArgumentHelp("Also write what the detector saw (lines, quad candidates, picks) to this JSON file.",
                               discussion: "tools/diagnose_rectangles.py reads it to tell where a missed rectangle was lost."))
    var trace: String?

    /// For measuring (issue 36, docs/finder.md): `fused` is what every command detects with,
    /// `classic` the hand-built stages alone, `learned` the learned picture finder's proposals
    /// alone (through the side fit).
    @Option(help: ArgumentHelp("fused (the default), classic or learned.", visibility: .hidden))
    var frontEnd: FrontEnd = .fused

    enum FrontEnd: String, ExpressibleByArgument { case fused, classic, learned }

    @Argument(help: "Photos (PNG, JPEG, HEIC, AVIF or WebP) or folders of them, or - for stdin.")
    var inputs: [String]

    func validate() throws {
        try InputFiles.validate(inputs)
        if (overlay != nil || trace != nil) && (inputs.count != 1 || FileManager.default.isDirectory(inputs[0])) {
            throw ValidationError("\(overlay != nil ? "--overlay" : "--trace") needs exactly one photo")
        }
        // The observations go to stdout, so the trace and the overlay cannot.
        if let trace, trace.isEmpty || trace == "-" { throw ValidationError("--trace needs a file name") }
        if let overlay, overlay.isEmpty || overlay == "-" {
            throw ValidationError("--overlay needs a file name (stdout holds the observations)")
        }
    }

    func run() throws {
        for path in [overlay, trace].compactMap({ $0 }) { try OutputPath(path).check() }
        let detector = try deviceOptions.makeDetector()
        let learned = frontEnd == .learned ? detector.finder : nil
        if frontEnd == .classic { detector.finder = nil }
        let o = rectangle.options
        let key = "detect front-end=\(frontEnd.rawValue) minimum-aspect-ratio=\(o.minimumAspectRatio) maximum-aspect-ratio=\(o.maximumAspectRatio) "
            + "quadrature-tolerance=\(o.quadratureTolerance) minimum-size=\(o.minimumSize) minimum-confidence=\(o.minimumConfidence) "
            + "maximum-observations=\(o.maximumObservations)"
        try ReportBatch(arguments: inputs, options: batchOptions, json: json, optionsKey: key).run(device: { detector.edgeStage.name }) { input, showFile, emit in
            let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
            let start = MonotonicClock.seconds()
            let (observations, seen) = try learned.map { (try $0.detect(image, options: rectangle.options), nil) }
                ?? (trace == nil ? (try detector.detect(image, options: rectangle.options), nil)
                                 : try detector.detectTraced(image, options: rectangle.options))
            let seconds = MonotonicClock.seconds() - start
            if let trace, let seen { try seen.write(to: trace) }
            if json {
                try emit(DetectionReport.json(observations, file: input, width: image.width, height: image.height, seconds: seconds))
            } else {
                let text = DetectionReport.text(observations, width: image.width, height: image.height)
                try emit(showFile ? "\(PrintableText.escaping(input)):\n" + text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") : text)
            }
            if let overlay {
                try ImageIO.writePNG(QuadOverlay.draw(observations.map(\.quad), on: image), to: overlay)
            }
            return !observations.isEmpty
        }
    }
}
