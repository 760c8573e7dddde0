import Foundation
import GPUStyle

/// The rectangle stages in `gpustyle bench`: detection on a photo-like scene at 640x480 and
/// 1920x1080 (the hand-built stages on every path; with the learned finder's proposals, and the
/// proposals alone, on the CPU path), and a 1920x1080 -> 1024x768 bilinear perspective warp, on
/// every path.
struct RectangleBench {
    struct Row {
        let work: String
        let size: String
        let path: String
        let seconds: [Double]
        var parity: String = "-"
        var median: Double { BenchStatistics.median(seconds) }
    }

    let runs: Int

    /// A framed bright picture, tilted in perspective, on the bench's textured background.
    static func scene(width: Int, height: Int) -> (Image, Quad) {
        var image = BenchInput.image(width: width, height: height)
        let w = Double(width), h = Double(height)
        let quad = Quad(topLeft: Point(x: 0.28 * w, y: 0.22 * h), topRight: Point(x: 0.71 * w, y: 0.26 * h),
                        bottomRight: Point(x: 0.69 * w, y: 0.78 * h), bottomLeft: Point(x: 0.30 * w, y: 0.73 * h))
        let plane = width * height
        let c = quad.corners
        for y in 0..<height {
            for x in 0..<width {
                let inside = (0..<4).allSatisfy { i in
                    let a = c[i], b = c[(i + 1) % 4]
                    return (b.x - a.x) * (Double(y) - a.y) - (b.y - a.y) * (Double(x) - a.x) >= 0
                }
                guard inside else { continue }
                let i = y * width + x
                for channel in 0..<3 { image.rgb[channel * plane + i] = 0.55 + 0.4 * image.rgb[channel * plane + i] }
            }
        }
        return (image, quad)
    }

    /// The largest distance between corresponding corners of `found` and `reference`.
    static func cornerParity(_ found: Quad, _ reference: Quad) -> String {
        String(format: "corners within %.3f px", zip(reference.corners, found.corners).map { $0.distance(to: $1) }.max()!)
    }

    func time(_ body: () throws -> Void) rethrows -> [Double] {
        try body()  // warm-up: pipelines, caches
        var times: [Double] = []
        for _ in 0..<runs {
            let start = MonotonicClock.seconds()
            try body()
            times.append(MonotonicClock.seconds() - start)
        }
        return times.sorted()
    }

    func run(vulkan: VulkanContext?) throws -> [Row] {
        var rows: [Row] = []
        let learned = LearnedDetection(finder: try PictureFinder(backend: CPUBackend(weights: [])))
        let fused = RectangleDetector()
        fused.finder = learned
        for (width, height) in [(640, 480), (1920, 1080)] {
            let (image, _) = RectangleBench.scene(width: width, height: height)
            var stages: [(String, EdgeStage)] = [("cpu", .cpu)]
            if let vulkan { stages.append(("vulkan", try EdgeStage.vulkan(context: vulkan))) }
            var reference: Quad?
            for (label, stage) in stages {
                let detector = RectangleDetector()
                detector.edgeStage = stage
                var found: Quad?
                var row = Row(work: "detect", size: "\(width)x\(height)", path: label,
                              seconds: try time { found = try detector.detect(image).first?.quad })
                if let reference, let found {
                    row.parity = Self.cornerParity(found, reference)
                } else if reference != nil || found == nil {
                    row.parity = found == nil ? "no quad found" : "-"
                }
                reference = reference ?? found
                rows.append(row)
            }
            // What `gpustyle detect` runs: the hand-built stages and the learned finder's
            // proposals (network on a working image, decoding, side fit; FinderFusion), CPU path.
            var found: Quad?
            var row = Row(work: "detect + finder", size: "\(width)x\(height)", path: "cpu",
                          seconds: try time { found = try fused.detect(image).first?.quad })
            if let reference, let found { row.parity = Self.cornerParity(found, reference) }
            rows.append(row)
            rows.append(Row(work: "finder proposals", size: "\(width)x\(height)", path: "cpu",
                            seconds: try time { _ = try learned.detect(image) }))
        }
        let (source, quad) = RectangleBench.scene(width: 1920, height: 1080)
        let mapping = try Homography.rectangle(width: 1024, height: 768, to: quad)
        var warpers: [(String, PerspectiveWarper)] = [("cpu", CPUPerspectiveWarper())]
        if let vulkan { warpers.append(("vulkan", try VulkanPerspectiveWarper(context: vulkan))) }
        var reference: Image?
        for (label, warper) in warpers {
            var output: Image?
            var row = Row(work: "warp", size: "1920x1080->1024x768", path: label,
                          seconds: try time { output = try warper.warp(source, outputToSource: mapping, width: 1024, height: 768) })
            if let reference, let output {
                row.parity = String(format: "max|d| %.1e", Parity(reference, output).maxAbsDiff)
            }
            reference = reference ?? output
            rows.append(row)
        }
        return rows
    }
}
