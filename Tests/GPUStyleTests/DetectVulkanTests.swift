import Foundation
import XCTest
@testable import GPUStyle

/// The GLSL edge stages of the rectangle detector (VulkanEdgeDetector) against the CPU kernels
/// of DetectEdges, stage by stage, and the whole detector with either edge stage, with the
/// validation layer on.
final class DetectVulkanTests: VulkanTestCase {
    static func photo(_ relative: String) throws -> Image {
        try ImageIO.read(path: Fixtures.root.appendingPathComponent(relative).path)
    }

    /// Nearest-neighbour resample (test images of a given size from a real photo).
    static func resampled(_ image: Image, width: Int, height: Int) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        for c in 0..<3 {
            for y in 0..<height {
                let sy = y * image.height / height
                for x in 0..<width {
                    rgb[c * width * height + y * width + x] = image.rgb[c * image.pixelCount + sy * image.width + x * image.width / width]
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb)
    }

    static func maxAbsDiff(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count)
        return zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// Every stage against the CPU stage fed the CPU's previous output: channels, blur, Sobel
    /// within 1e-5 (lavapipe: bit-identical), thresholds equal, NMS mismatches ≤ 0.1%.
    func testStagesMatchCPUKernels() throws {
        let gpu = try VulkanEdgeDetector(context: context)
        let scene = try Self.photo("rectangles/000.png")
        var images: [(String, Image)] = try ["astronaut", "chelsea", "coffee"].map { ($0, try Self.photo("photos/\($0).png")) }
        images.append(("rectangles/000.png 1280x720", scene))
        images.append(("rectangles/001.jpg", try Self.photo("rectangles/001.jpg")))
        images.append(("000 at 640x480", Self.resampled(scene, width: 640, height: 480)))
        images.append(("000 at 1920x1080", Self.resampled(scene, width: 1920, height: 1080)))
        images.append(("000 at 479x481 (odd sizes)", Self.resampled(scene, width: 479, height: 481)))
        // Scale 9: detect_channels's generic (not unrolled) path.
        images.append(("000 at 4000x300 (generic channels path)", Self.resampled(scene, width: 4000, height: 300)))
        for (name, image) in images {
            let (map, channels, blurred) = try gpu.stages(image, intermediates: true)
            let scale = DetectEdges.scale(width: image.width, height: image.height)
            let w = image.width / scale, h = image.height / scale
            XCTAssertEqual(map.width, w); XCTAssertEqual(map.height, h); XCTAssertEqual(map.scale, scale)

            let cpuChannels = DetectEdges.downscaledChannels(image, scale: scale, width: w, height: h)
            let cpuBlurred = cpuChannels.map { DetectEdges.gaussian5($0, width: w, height: h) }
            var magnitude = [Float](repeating: 0, count: w * h), gx = magnitude, gy = magnitude
            DetectEdges.sobel(cpuBlurred, width: w, height: h, magnitude: &magnitude, gx: &gx, gy: &gy)
            let (low, high) = DetectEdges.thresholds(magnitude)
            let edges = DetectEdges.suppressNonMaxima(magnitude, gx, gy, width: w, height: h, low: low)

            XCTAssertEqual(channels.count, 3); XCTAssertEqual(blurred.count, 3)
            let diffs = [("channels", Self.maxAbsDiff(channels.flatMap { $0 }, cpuChannels.flatMap { $0 })),
                         ("blur", Self.maxAbsDiff(blurred.flatMap { $0 }, cpuBlurred.flatMap { $0 })),
                         ("magnitude", Self.maxAbsDiff(map.magnitude, magnitude)), ("gx", Self.maxAbsDiff(map.gx, gx)),
                         ("gy", Self.maxAbsDiff(map.gy, gy))]
            for (stage, diff) in diffs { XCTAssertLessThanOrEqual(diff, 1e-5, "\(name): \(stage) max abs diff") }
            XCTAssertEqual(map.strongThreshold, high, "\(name): threshold")
            let mismatches = zip(map.edges, edges).filter { $0 != $1 }.count
            XCTAssertLessThanOrEqual(Double(mismatches), 0.001 * Double(w * h), "\(name): NMS mismatches")
            let identical = channels == cpuChannels && blurred == cpuBlurred && map.magnitude == magnitude && map.gx == gx && map.gy == gy
            print("detect vulkan \(name) \(w)x\(h): max diffs " + diffs.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                  + ", NMS mismatches \(mismatches), bit-identical front: \(identical), edges \(map.edges.filter { $0 > 0 }.count)")
        }
    }

    /// The whole detector with CPU edges and with GLSL edges: same observations, corners within 0.5 px.
    func testDetectionSameQuads() throws {
        struct Scene: Decodable { let file: String }
        let folder = Fixtures.root.appendingPathComponent("rectangles")
        let scenes = try JSONDecoder().decode([Scene].self, from: Data(contentsOf: folder.appendingPathComponent("scenes.json")))
        let chosen = [0, 1, 2, 3, 5, 8, 13, 21, 34, 40, 45].filter { $0 < scenes.count }.map { scenes[$0].file }
        let cpu = RectangleDetector()
        let gpu = RectangleDetector()
        gpu.edgeStage = try .vulkan(context: context)
        var all = RectangleDetectionOptions()
        all.maximumObservations = 0
        var compared = 0
        var largest = 0.0
        for file in chosen {
            let image = try Self.photo("rectangles/\(file)")
            for options in [RectangleDetectionOptions(), all] {
                let a = try cpu.detect(image, options: options), b = try gpu.detect(image, options: options)
                XCTAssertEqual(a.count, b.count, "\(file): observation count")
                for (x, y) in zip(a, b) {
                    for (p, q) in zip(x.quad.corners, y.quad.corners) {
                        XCTAssertLessThanOrEqual(p.distance(to: q), 0.5, "\(file): corner \(p) vs \(q)")
                        largest = max(largest, p.distance(to: q))
                    }
                    XCTAssertEqual(x.confidence, y.confidence, accuracy: 1e-4, "\(file): confidence")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 0)
        print("detect vulkan: \(chosen.count) scenes, \(compared) observations compared, largest corner difference \(largest) px")
    }

    /// The edge stages on both paths at 640x480 and 1920x1080 (printed; lavapipe is a CPU
    /// Vulkan, so slower than the CPU kernels is expected there).
    func testEdgeStageTimings() throws {
        let gpu = try VulkanEdgeDetector(context: context)
        let scene = try Self.photo("rectangles/000.png")
        for (w, h) in [(640, 480), (1920, 1080)] {
            let image = Self.resampled(scene, width: w, height: h)
            _ = try gpu.run(image)  // pipelines, buffers
            _ = DetectEdges.run(image)
            func best(_ body: () throws -> Void) rethrows -> Double {
                var times: [Double] = []
                for _ in 0..<7 {
                    let t = MonotonicClock.seconds()
                    try body()
                    times.append((MonotonicClock.seconds() - t) * 1000)
                }
                return times.sorted()[times.count / 2]
            }
            let cpuTime = best { _ = DetectEdges.run(image) }
            let gpuTime = try best { _ = try gpu.run(image) }
            print(String(format: "detect edges %dx%d: CPU %.2f ms, Vulkan (%@) %.2f ms (median of 7)", w, h, cpuTime,
                         context.info.name, gpuTime))
        }
    }
}
