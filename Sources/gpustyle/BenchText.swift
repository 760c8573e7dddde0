import Foundation
import GPUStyle

/// `gpustyle bench --text [--text-photo photo]`: `gpustyle text`'s work on one photo (a
/// generated 1280x720 page of printed lines, or the photo given) on the CPU path and on Vulkan:
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
    static let width = 1280, height = 720

    func run(vulkan: VulkanContext?) throws -> [RectangleBench.Row] {
        let image = try photo.map { try ImageIO.read(path: $0) } ?? Self.scene()
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
            let crop = Self.lineCrop(image, width: width)
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

    /// The recogniser's input for the network rows and `profile --network text-rec`: the box
    /// (5 %, 4 %) to (55 %, 13 %) of the photo (the generated page's heading) resized to
    /// `width` x 48 (tools/bench_text_onnxruntime.py cuts the same box).
    static func lineCrop(_ image: Image, width: Int) -> Image {
        let x = image.width * 5 / 100, y = image.height * 4 / 100
        return image.cropped(x: x, y: y, width: max(1, image.width / 2), height: max(1, image.height * 9 / 100))
            .resized(width: width, height: TextRecognitionNetwork.inputHeight)
    }

    /// A light page with a heading and eleven lines of printed text (Latin letters, digits,
    /// punctuation), slightly uneven light: the kind of scene `gpustyle text` reads.
    static func scene() throws -> Image {
        let renderer = try TextRenderer()
        let plane = width * height
        var rgb = [Float](repeating: 0, count: 3 * plane)
        for y in 0..<height {
            for x in 0..<width {
                let light = 0.86 + 0.06 * Float(x) / Float(width) - 0.04 * Float(y) / Float(height)
                rgb[y * width + x] = light
                rgb[plane + y * width + x] = light - 0.01
                rgb[2 * plane + y * width + x] = light - 0.04
            }
        }
        let lines: [(String, Int)] = [
            ("Quarterly report 2024", 48),
            ("Revenue grew by 12.5% to $4.2 million in the third quarter,", 26),
            ("driven by strong demand for our new product line (Model X-200).", 26),
            ("Operating costs fell 3% after the move to the Leeds warehouse;", 26),
            ("staff numbers stayed at 148. Orders shipped: 18,422 units.", 26),
            ("Contact: sales@example.com or +44 20 7946 0958 before 30 June.", 26),
            ("Next steps", 36),
            ("1. Open two more shops in Bristol and York by March.", 26),
            ("2. Cut delivery times from 5 days to 3 for 90% of orders.", 26),
            ("3. Review prices of the 24 items sold below cost.", 26),
            ("Page 3 of 12", 22),
        ]
        var top = 40
        for (text, pixels) in lines {
            let bitmap = try renderer.render(text, pixelSize: pixels)
            let left = 70
            for y in 0..<bitmap.height where top + y < height {
                for x in 0..<bitmap.width where left + x < width {
                    let a = Float(bitmap[x, y]) / 255
                    guard a > 0 else { continue }
                    let i = (top + y) * width + left + x
                    for c in 0..<3 { rgb[c * plane + i] = rgb[c * plane + i] * (1 - a) + 0.12 * a }
                }
            }
            top += bitmap.height + pixels / 2 + 8
        }
        return Image(width: width, height: height, rgb: rgb)
    }
}
