import ArgumentParser
import Foundation
import GPUStyle

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the network on every path (CPU, each Vulkan device) on the same input, in one process."
    )

    enum Paths: String, ExpressibleByArgument { case all, cpu, gpu }

    @Option(help: ArgumentHelp("Time these networks alone on every path instead of the style network and the rectangle stages: a comma list of style, classify, faces, mesh, digits, text (text-det and text-rec), text-det, text-rec or all. Those that take a size (style, faces, text-det) run at each of --sizes, the others once at their fixed size; the graph networks from their prepared input tensor, the style network as `stylize` runs it (tiles where a picture does not fit the device).",
                               valueName: "networks"))
    var network: String?

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
        if let network {
            do { _ = try BenchNetwork.parseList(network) } catch { throw ValidationError("--network: \(error)") }
            let others = [(noNetwork, "--no-network"), (noRectangles, "--no-rectangles"), (classify, "--classify"), (finder, "--finder"),
                          (digits != nil, "--digits"), (text, "--text")].filter(\.0).map(\.1)
            if !others.isEmpty {
                throw ValidationError("--network times the networks alone; it does not combine with \(others.joined(separator: ", "))")
            }
        }
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
        if let network { return try runNetworks(try BenchNetwork.parseList(network)) }
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

    /// `--network`: `NetworkBench` on the paths --device names; fails (status 1) when a path's
    /// output differs from the first path's by more than `networkTolerance`.
    func runNetworks(_ networks: [BenchNetwork]) throws {
        var paths: [NetworkBench.Path] = []
        if device != .gpu { paths.append(.cpu()) }
        if device != .cpu {
            let vulkan = NetworkBench.Path.vulkan(options: .fromEnvironment())
            if device == .gpu, let failure = vulkan.first(where: { $0.error != nil }), vulkan.allSatisfy({ $0.error != nil }) {
                throw CommandFailure(message: "Vulkan unavailable: \(failure.error!)", status: 1)
            }
            paths += vulkan
        }
        let sizes = try parsedSizes()
        var rows: [NetworkBench.Row] = []
        for network in networks {
            rows += try NetworkBench.run(network, sizes: sizes, paths: paths, runs: runs, style: style)
        }
        let report = NetworkBenchReport(paths: paths, rows: rows)
        try StandardOutput.print(json ? try report.json() : report.table())
        let tolerance = Self.networkTolerance(fp16Storage: ComputeOptions.fromEnvironment().fp16Storage)
        let disagreements = rows.filter { ($0.difference ?? 0) > Double(tolerance) }
            .map { String(format: "%@ %@ on %@: %.1e", $0.network.rawValue, $0.size, $0.path, $0.difference!) }
        if !disagreements.isEmpty {
            throw CommandFailure(message: "paths disagree (relative tolerance \(tolerance)): "
                                 + disagreements.joined(separator: "; "), status: 1)
        }
    }

    /// The largest relative difference between two paths' outputs that `--network` accepts:
    /// `Parity.tolerance`, the style network's (the graph networks' parity tests hold both paths
    /// within 1e-3 of their references); with fp16 storage (GPUSTYLE_VULKAN_FP16=1) the graph
    /// networks' tolerance in VulkanGraphHalfStorageTests, 0.15 (the text detector's map moved by
    /// up to 0.096 and classify's probabilities by 0.031 on lavapipe).
    static func networkTolerance(fp16Storage: Bool) -> Float { fp16Storage ? 0.15 : Parity.tolerance }
}
