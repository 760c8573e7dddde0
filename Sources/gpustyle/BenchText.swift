import Foundation
import GPUStyle

/// `gpustyle bench --text [--text-photo photo]`: `gpustyle text`'s work on one photo (a
/// generated 1280x720 page (`BenchInput.textPage`) of printed lines, or the photo given) on the CPU path and on Vulkan:
/// the two networks alone (tools/bench_text_onnxruntime.py compares them with onnxruntime),
/// detection alone (`TextReader.regions`), recognition of those regions alone
/// (`TextReader.read(_:in:)`), and the whole read, each after a warm-up run; then where the
/// whole read's time goes (`TextReader.StageTimes`, per run): the detection pass's resize,
/// network and map decoding, and per crop the perspective warp, the recogniser, CTC decoding
/// and the characters' boxes. Each path's text is compared with the CPU path's.
struct TextBench {
    let runs: Int
    let photo: String?
    /// Only the networks' rows.
    var networksOnly = false

    func run(vulkan: VulkanContext?) throws -> [RectangleBench.Row] {
        let image = try photo.map { try ImageIO.read(path: $0) } ?? BenchInput.textPage()
        let size = "\(image.width)x\(image.height)"
        var rows: [RectangleBench.Row] = []
        var reference: [String]?
        for (label, backend) in try ClassifyBench.networkBackends(vulkan: vulkan) {
            let reader = try TextReader(backend: backend)
            let bench = RectangleBench(runs: runs)
            // The networks alone (input tensor, run, output) at the sizes the read runs them:
            // the detector at the whole-photo pass's size, the recogniser at its least width.
            let pass = Self.passSize(image, side: TextReader.Options().detectionSide)
            let scaled = image.resized(width: pass.width, height: pass.height)
            rows.append(RectangleBench.Row(work: "text det network", size: "\(pass.width)x\(pass.height)", path: label,
                                           seconds: try bench.time { _ = try reader.detector.probabilities(scaled, width: pass.width,
                                                                                                        height: pass.height) }))
            let line = TextRecognitionNetwork.inputHeight, width = TextReader.Options().minimumRecognitionWidth
            let crop = BenchInput.textLine(image, width: width)
            rows.append(RectangleBench.Row(work: "text rec network", size: "\(width)x\(line)", path: label,
                                           seconds: try bench.time { _ = try reader.recognizer.probabilities(crop, width: width) }))
            if networksOnly { continue }
            var regions: [TextRegion] = []
            let detection = try bench.time { regions = try reader.regions(image) }
            var lines: [TextLine] = []
            let recognition = try bench.time { lines = try reader.read(regions, in: image) }
            var stages: [(times: TextReader.StageTimes, seconds: Double)] = []
            let read = try bench.time {
                reader.stageTimes = TextReader.StageTimes()
                let start = MonotonicClock.seconds()
                lines = try reader.read(image)
                stages.append((reader.stageTimes!, MonotonicClock.seconds() - start))
            }
            reader.stageTimes = nil
            stages.removeFirst()  // the warm-up's
            let crops = stages.last?.times.crops ?? 0
            rows.append(RectangleBench.Row(work: "text detect (\(regions.count) regions)", size: size, path: label, seconds: detection))
            rows.append(RectangleBench.Row(work: "text recognise (\(lines.count) lines, \(crops) crops)", size: size, path: label,
                                           seconds: recognition))
            var whole = RectangleBench.Row(work: "text read", size: size, path: label, seconds: read)
            let strings = lines.map(\.string)
            if let reference {
                whole.parity = strings == reference ? "same text" : "different text"
            } else {
                reference = strings
            }
            rows.append(whole)
            // The whole read's stages, run by run (the rest: reading order, merging, options).
            let parts: [(String, (TextReader.StageTimes) -> Double)] = [
                ("det resize", \.detectionResize), ("det network", \.detectionNetwork), ("det decode", \.detectionDecode),
                ("rec warp", \.cropWarp), ("rec network", \.recognitionNetwork), ("rec CTC", \.ctcDecode),
                ("rec char boxes", \.characterBoxes),
            ]
            for (name, stage) in parts {
                rows.append(RectangleBench.Row(work: "  read: \(name)", size: size, path: label,
                                               seconds: stages.map { stage($0.times) }.sorted()))
            }
            rows.append(RectangleBench.Row(work: "  read: rest", size: size, path: label,
                                           seconds: stages.map { run in run.seconds - parts.reduce(0) { $0 + $1.1(run.times) } }.sorted()))
        }
        return rows
    }

    /// The whole-photo detection pass's input size (`TextReader.pass`): the photo scaled to a
    /// longer side of at most `side`, each side rounded to a multiple of 32.
    static func passSize(_ image: Image, side: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(side) / Double(max(image.width, image.height)))
        let multiple = TextDetectionNetwork.sideMultiple
        func round(_ s: Int) -> Int { max(multiple, Int((Double(s) * scale / Double(multiple)).rounded()) * multiple) }
        return (round(image.width), round(image.height))
    }
}
