import ArgumentParser
import Foundation
import GPUStyle

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Time every step (CPU) and every dispatch (Vulkan timestamps) of the network, against the device's measured limits.",
        discussion: """
            Runs one warm-up and N profiled runs per path and reports the median per step and per op kind:
            ms, share of the total, GFLOP/s and GB/s (from the step's shapes), and the fraction of the \
            device's limit (FMA peak for compute-bound steps, copy bandwidth for memory-bound ones; the \
            ridge point is peak / bandwidth), as measured by built-in micro-benchmarks.
            """
    )

    enum Paths: String, ExpressibleByArgument { case all, cpu, gpu }
    @Option(help: "Which paths to profile: all, cpu or gpu.")
    var device: Paths = .all

    @Option(name: .customLong("gpu-id"), help: "The Vulkan device to profile (an index from `gpustyle devices`); default: the one the commands pick (discrete > integrated > virtual > cpu).")
    var gpuID: Int?

    @Option(help: "Which network: style (the 26-style network at --size), classify (the built-in MobileNetV2 at 224x224), faces (the RetinaFace face detector, one pass at --size rounded up to multiples of 32), mesh (the 468-point face landmark model at 192x192), digits (the note-digit network on one 28x28 glyph), text-det (PP-OCRv6 tiny's text detector, one pass at --size rounded up to multiples of 32; default 960x544) or text-rec (its recogniser on a 48-pixel-high line --size's width wide, rounded up to a multiple of 8; default 320x48).")
    var network: BenchNetwork = .style

    @Option(help: "Input size WxH (style: rounded up to multiples of 4; default 512x512, text-det 960x544, text-rec 320x48).")
    var size: String?

    @Option(help: ArgumentHelp("text-det and text-rec: run on this photo resized to the input size (text-rec: a line) instead of a generated page of text (text-rec: its heading).", valueName: "photo"))
    var photo: String?

    @Option(help: "Profiled runs per path (after one warm-up run); the report shows medians.")
    var runs: Int = 5

    @Option(help: "Style index used for the runs.")
    var style: Int = 2

    @Flag(help: "Print JSON instead of tables.")
    var json = false

    @Option(help: "Write a Chrome/Perfetto trace (JSON) of the last run of each path to this file.")
    var trace: String?

    @Option(help: "Write a PNG chart: per-step bars (ms, share) and roofline gauges, one panel per path.")
    var plot: String?

    @Flag(name: .customLong("skip-limits"), help: "Do not run the micro-benchmarks (no roofline columns).")
    var skipLimits = false

    @OptionGroup var instructionSet: InstructionSetOption

    func validate() throws {
        guard runs >= 1 && runs <= 1000 else { throw ValidationError("--runs must be between 1 and 1000") }
        _ = try parsedSize()
        guard (0..<StyleNetwork.styleCount).contains(style) else {
            throw ValidationError("--style must be between 0 and \(StyleNetwork.styleCount - 1)")
        }
        if gpuID != nil && device == .cpu { throw ValidationError("--gpu-id picks a Vulkan device; --device cpu profiles none") }
        if photo != nil && network != .textDetection && network != .textRecognition {
            throw ValidationError("--photo is for --network text-det and text-rec")
        }
        if let trace, trace.isEmpty { throw ValidationError("--trace needs a file name") }
        // The tables and JSON go to stdout, so the chart cannot.
        if let plot, plot.isEmpty || plot == "-" { throw ValidationError("--plot needs a file name") }
    }

    /// Refuses unusable output paths before the minutes of profiling, not after.
    static func checkOutput(_ path: String) throws {
        try OutputPath(path).check()
    }

    func parsedSize() throws -> (width: Int, height: Int) {
        // classify, mesh and digits run at their fixed size.
        guard network.takesSize || network == .textRecognition else {
            if size != nil { throw ValidationError("--size is for --network style, faces, text-det and text-rec; \(network.rawValue) runs at its fixed size") }
            return network.defaultSize
        }
        let size = self.size ?? "\(network.defaultSize.width)x\(network.defaultSize.height)"
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              w >= StyleNetwork.minimumInputSide, h >= StyleNetwork.minimumInputSide, w * h <= 16_000_000 else {
            throw ValidationError("bad size '\(size)': expected WxH, each side >= \(StyleNetwork.minimumInputSide), at most 16 megapixels")
        }
        if network == .textRecognition && h != TextRecognitionNetwork.inputHeight {
            throw ValidationError("bad size '\(size)': the text recogniser's input is \(TextRecognitionNetwork.inputHeight) pixels high")
        }
        return (w, h)
    }

    func run() throws {
        for path in [trace, plot].compactMap({ $0 }) { try Self.checkOutput(path) }
        try instructionSet.apply()
        let (width, height) = try parsedSize()
        let workload = try NetworkWorkload.make(network, width: width, height: height, style: style,
                                                photo: try photo.map { try ImageIO.read(path: $0) })
        let plan = workload.plan, inputs = workload.inputs, parameters = workload.normParameters
        var reports: [ProfileReport] = []
        var notes: [String] = []
        var chrome = ChromeTrace()
        func profile(_ label: String, _ backend: NetworkBackend, limits: () throws -> DeviceLimits?, pid: Int, track: String) throws {
            let measured = try limits()
            // The Vulkan backend records a fused step's parts (a style convolution's, an inverted
            // residual block's): it gets them as steps of their own, each named by its shader
            // (a block's depthwise, projection and add stay one step where it fuses them).
            let plan = (backend as? VulkanBackend)?.splittingFusedSteps(plan) ?? plan
            let results = try Profiler.profile(backend, plan: plan, inputs: inputs, normParameters: parameters, runs: runs)
            reports.append(ProfileReport(path: label, device: backend.name, plan: plan, runs: results, limits: measured,
                                         kernelNote: { backend.kernelNote(for: $0, in: plan) }))
            chrome.add(results.last!.slices, track: ChromeTrace.Track(pid: pid, tid: 1, name: "\(label): \(track)"))
        }

        if device != .gpu {
            let cpu = CPUBackend(weights: workload.convolutions)
            try profile("cpu", cpu, limits: { skipLimits ? nil : MicroBenchmarks.cpu() }, pid: 1, track: "calling thread (kernels on all cores)")
        }
        if device != .cpu {
            do {
                let options = ComputeOptions.fromEnvironment()
                let context = try VulkanContext(deviceIndex: gpuID, options: options)
                let vulkan = try VulkanBackend(context: context, weights: workload.convolutions,
                                               options: VulkanBackend.Options(options))
                try profile("vulkan", vulkan, limits: { skipLimits ? nil : try MicroBenchmarks.vulkan(vulkan) },
                            pid: 2, track: "compute queue")
            } catch {
                if device == .gpu { throw CommandFailure(message: "Vulkan unavailable: \(error)", status: 1) }
                notes.append("vulkan: unavailable (\(error))")
            }
        }
        if let trace { try chrome.write(to: trace) }
        if let plot { try ProfilePlot(reports: reports).write(to: plot) }

        if json {
            var object: [String: Any] = ["reports": reports.map { $0.jsonObject() },
                                         "machine": ["cores": ProcessInfo.processInfo.activeProcessorCount]]
            if !notes.isEmpty { object["notes"] = notes }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            try StandardOutput.print(String(decoding: data, as: UTF8.self))
        } else {
            try StandardOutput.print((reports.map(Self.table) + notes).joined(separator: "\n\n"))
        }
    }

    /// Steps listed by time above the per-kind table, for plans of more than twice as many steps.
    static let slowestSteps = 15

    static func table(_ report: ProfileReport) -> String {
        var lines = ["\(report.path): \(report.device), \(report.width)x\(report.height), median of \(report.runs) runs"]
        if let limits = report.limits {
            lines.append(String(format: "limits: FMA peak %.1f GFLOP/s, copy %.1f GB/s, ridge %.2f flop/B", limits.gflops, limits.gbps, limits.ridge))
        }
        var total = String(format: "wall %.1f ms/run; steps sum %.1f ms (%.1f%% of wall)", report.wallMilliseconds,
                           report.stepsMilliseconds, 100 * report.stepsMilliseconds / report.wallMilliseconds)
        if let device = report.deviceMilliseconds {
            total += String(format: "; device span %.1f ms (steps = %.1f%% of it)", device, 100 * report.stepsMilliseconds / device)
        }
        lines.append(total)
        let header = ["op", "layer", "ms", "share", "GFLOP/s", "GB/s", "flop/B", "bound", "of limit"]
        func cells(_ r: ProfileReport.Row, _ first: String, _ second: String) -> [String] {
            [first, second, String(format: "%.2f", r.milliseconds), String(format: "%.1f%%", 100 * r.share),
             r.flops > 0 ? String(format: "%.1f", r.gflops) : "-", String(format: "%.1f", r.gbps),
             String(format: "%.2f", r.intensity), r.bound ?? "-",
             r.fractionOfLimit.map { String(format: "%.0f%%", 100 * $0) } ?? "-"]
        }
        func stepCells(_ r: ProfileReport.Row) -> [String] { cells(r, "\(r.step!) \(r.kind)", r.layer.isEmpty ? "-" : r.layer) }
        // Long plans (the text and face networks have 100+ steps): the steps that dominate first.
        let slowest = report.steps.sorted { $0.milliseconds > $1.milliseconds }.prefix(Self.slowestSteps)
        if report.steps.count > 2 * Self.slowestSteps {
            lines.append("")
            lines.append(String(format: "slowest %d of %d steps: %.1f%% of the steps' time", slowest.count, report.steps.count,
                                100 * slowest.reduce(0) { $0 + $1.share }))
            lines += TextTable.format([header] + slowest.map(stepCells))
        }
        lines += convolutionTable(report)
        lines.append("")
        lines += TextTable.format([["op kind", "steps"] + header.dropFirst(2)]
                                  + report.kinds.map { cells($0, $0.kind, "\($0.count)") })
        lines.append("")
        lines += TextTable.format([header] + report.steps.map(stepCells))
        if report.kinds.contains(where: { $0.kind.hasSuffix(ProfileReport.winogradMark) }) {
            lines += ["", ProfileReport.winogradFootnote]
        }
        return lines.joined(separator: "\n")
    }
}

extension ProfileCommand {
    /// The convolutions by kind (kernel, stride and, on Vulkan, the shader: "conv2d 3x3/2
    /// [depthwise]"), fastest GFLOP/s first, with the mean time and work per step: the per-kind
    /// GFLOP/s of the graph shaders to set against "[conv2d.comp]" from `--network style`.
    /// Nothing for plans with fewer than two kinds of convolution.
    static func convolutionTable(_ report: ProfileReport) -> [String] {
        let convolutions = report.kinds.filter { $0.flops > 0 }.sorted { $0.gflops > $1.gflops }
        guard convolutions.count > 1 else { return [] }
        let ms = convolutions.reduce(0) { $0 + $1.milliseconds }, flops = convolutions.reduce(0) { $0 + $1.flops }
        let rows = convolutions.map { r in
            [r.kind, "\(r.count)", String(format: "%.2f", r.milliseconds), String(format: "%.1f%%", 100 * r.share),
             String(format: "%.2f", r.gflops), String(format: "%.0f", 1000 * r.milliseconds / Double(r.count)),
             String(format: "%.2f", r.flops / Double(r.count) / 1e6)]
        }
        let total = ["all convolutions", "\(convolutions.reduce(0) { $0 + $1.count })", String(format: "%.2f", ms),
                     String(format: "%.1f%%", 100 * convolutions.reduce(0) { $0 + $1.share }),
                     String(format: "%.2f", ms > 0 ? flops / (ms * 1e6) : 0), "-", "-"]
        return [""] + TextTable.format([["convolution kind", "steps", "ms", "share", "GFLOP/s", "us/step", "MFLOP/step"]]
                                       + rows + [total])
    }
}

extension BenchNetwork: ExpressibleByArgument {}
