import ArgumentParser
import Foundation
import GPUStyle

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the network on every path (CPU, each Vulkan device) on the same input, in one process."
    )

    enum Paths: String, ExpressibleByArgument { case all, cpu, gpu }

    @Option(help: "Comma-separated WxH sizes.")
    var sizes: String = "256x256,512x512,640x480,1920x1080"

    @Option(help: "Timed runs per size and path (after one warm-up run).")
    var runs: Int = 5

    @Option(help: "Which paths to time: all, cpu or gpu.")
    var device: Paths = .all

    @Option(help: "Style index used for the runs.")
    var style: Int = 2

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Skip the rectangle stages (detection, perspective warp).")
    var noRectangles = false

    @Flag(help: "Skip the network: time only the rectangle stages (for peer scripts that compare those alone).")
    var noNetwork = false

    @Flag(help: "Also time the built-in classifier (MobileNetV2, 224x224) on each path.")
    var classify = false

    @Flag(help: "Also time the learned picture finder (network and decoding, 320x240 working image) on each path.")
    var finder = false

    @Option(help: ArgumentHelp("Also time `gpustyle digits` on this photo on each path (e.g. a 1080p photo of 4 notes: tools/bench_digits.sh).",
                               valueName: "photo"))
    var digits: String?

    @Flag(help: "Also time `gpustyle text` on each path: detection, recognition and the whole read of a generated 1280x720 page (or --text-photo), and the read's stages.")
    var text = false

    @Option(help: ArgumentHelp("With --text: time it on this photo instead of the generated page.", valueName: "photo"))
    var textPhoto: String?

    @Flag(help: "With --text: time the two networks only, not the reads (tools/bench_text_onnxruntime.py).")
    var textNetworksOnly = false

    @OptionGroup var instructionSet: InstructionSetOption

    func validate() throws {
        guard runs >= 1 && runs <= 1000 else { throw ValidationError("--runs must be between 1 and 1000") }
        if (textPhoto != nil || textNetworksOnly) && !text {
            throw ValidationError("--text-photo and --text-networks-only need --text")
        }
        guard !(noNetwork && noRectangles && !classify && !finder && digits == nil && !text) else {
            throw ValidationError("--no-network and --no-rectangles leave nothing to time")
        }
        _ = try parsedSizes()
    }

    func parsedSizes() throws -> [(width: Int, height: Int)] {
        try sizes.split(separator: ",").map { text in
            let parts = text.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  w >= StyleNetwork.minimumInputSide, h >= StyleNetwork.minimumInputSide, w * h <= 16_000_000 else {
                throw ValidationError("bad size '\(text)': expected WxH, each side >= \(StyleNetwork.minimumInputSide), at most 16 megapixels")
            }
            return (w, h)
        }
    }

    func run() throws {
        let mix = try StyleMix(style: style)
        try instructionSet.apply()
        var paths: [BenchPath] = []
        // Without the network, no backend is built: its setup (weights, pipelines) would only
        // add start-up time to a rectangles-only run.
        if !noNetwork {
            let model = try StyleModel.bundled()
            if device != .gpu { paths.append(BenchPath.cpu(model)) }
            if device != .cpu { paths += BenchPath.vulkan(model, required: device == .gpu) }
        }
        var results: [BenchResult] = []
        for (width, height) in noNetwork ? [] : try parsedSizes() {
            let image = BenchInput.image(width: width, height: height)
            var reference: Image?
            for path in paths {
                guard let stylizer = path.stylizer else { continue }
                var result = try BenchResult.measure(stylizer, path: path, image: image, mix: mix, runs: runs)
                if let reference, let output = result.output {
                    result.parity = Parity(reference, output)
                } else {
                    reference = result.output
                }
                results.append(result)
            }
        }
        var rectangles: [RectangleBench.Row] = []
        let context = device == .cpu || (noRectangles && !classify && !finder && digits == nil && !text) ? nil : try? VulkanContext(options: .fromEnvironment())
        if !noRectangles {
            rectangles = try RectangleBench(runs: runs).run(vulkan: context)
        }
        if classify {
            rectangles += try ClassifyBench(runs: runs).run(vulkan: context)
        }
        if finder {
            rectangles += try FinderBench(runs: runs).run(vulkan: context)
        }
        if let digits {
            rectangles += try DigitsBench(runs: runs, photo: digits).run(vulkan: context)
        }
        if text {
            rectangles += try TextBench(runs: runs, photo: textPhoto, networksOnly: textNetworksOnly).run(vulkan: context)
        }
        let report = BenchReport(paths: paths, results: results, rectangles: rectangles)
        try StandardOutput.print(json ? report.json() : report.table())
        // Speed means nothing if a path computes something else: fail loudly.
        let disagreements = results.compactMap { result -> String? in
            guard let parity = result.parity, !parity.agrees else { return nil }
            return String(format: "%@ at %dx%d: max |d| %g", result.path, result.width, result.height, parity.maxAbsDiff)
        }
        if !disagreements.isEmpty {
            throw CommandFailure(message: "paths disagree (tolerance \(Parity.tolerance)): " + disagreements.joined(separator: "; "),
                                 status: 1)
        }
    }
}
