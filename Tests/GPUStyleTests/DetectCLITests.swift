import Foundation
import XCTest
@testable import GPUStyle

final class DetectCLITests: XCTestCase {
    var scene: String { Fixtures.root.appendingPathComponent("rectangles/000.png").path }

    func testJSONHasCornersNormalizedConfidenceAndBox() throws {
        let result = try TestProcess.gpustyle(["detect", "--json", scene])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual(object["width"] as? Int, 1280)
        XCTAssertEqual(object["height"] as? Int, 720)
        let first = try XCTUnwrap((object["observations"] as? [[String: Any]])?.first)
        let corners = try XCTUnwrap(first["corners"] as? [String: [Double]])
        XCTAssertEqual(Set(corners.keys), ["topLeft", "topRight", "bottomRight", "bottomLeft"])
        let normalized = try XCTUnwrap(first["normalized"] as? [String: [Double]])
        // Vision's convention: origin bottom-left, y up.
        let tl = corners["topLeft"]!, ntl = normalized["topLeft"]!
        XCTAssertEqual(ntl[0], (tl[0] + 0.5) / 1280, accuracy: 1e-9)
        XCTAssertEqual(ntl[1], 1 - (tl[1] + 0.5) / 720, accuracy: 1e-9)
        XCTAssertNotNil(first["confidence"] as? Double)
        XCTAssertEqual((first["boundingBox"] as? [Double])?.count, 4)
    }

    func testOverlayAndNoRectangle() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-detect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let overlay = folder.appendingPathComponent("overlay.png").path
        let found = try TestProcess.gpustyle(["detect", scene, "--overlay", overlay])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(try ImageIO.read(path: overlay).width, 1280)

        let flat = folder.appendingPathComponent("flat.png").path
        try ImageIO.writePNG(SyntheticScene.render(width: 320, height: 240, quad: nil), to: flat)
        let none = try TestProcess.gpustyle(["detect", flat])
        XCTAssertEqual(none.status, 1)
        XCTAssert(String(decoding: none.stdout, as: UTF8.self).contains("no rectangle found"))
    }

    func testBadOptionsAndInputs() throws {
        for arguments in [["detect", "--quadrature-tolerance", "50", scene], ["detect", "--minimum-size", "-1", scene],
                          ["detect", "/nonexistent.png"], ["detect", "--maximum-observations", "x", scene],
                          ["detect", "--trace", "-", scene], ["detect", "--overlay", "-", scene]] {
            let result = try TestProcess.gpustyle(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
    }

    /// `--device gpu` runs the edge front on the Vulkan edge stage (`--verbose` says so) and finds
    /// the quads `--device cpu` finds (corners within DetectVulkanTests' 0.5 px, the GLSL
    /// kernels' float sums); `--device cpu` names the CPU kernels.
    func testDeviceChoosesTheEdgeStage() throws {
        func observations(_ result: ProcessResult) throws -> [[String: Any]] {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            return try XCTUnwrap(object["observations"] as? [[String: Any]])
        }
        let all = ["--maximum-observations", "0", "--json", "--verbose", scene]
        let cpu = try TestProcess.gpustyle(["detect", "--device", "cpu"] + all)
        XCTAssertEqual(cpu.status, 0, cpu.stderr)
        XCTAssertTrue(cpu.stderr.contains("edge stage: cpu — --device cpu"), cpu.stderr)
        let gpu = try TestProcess.gpustyle(["detect", "--device", "gpu"] + all)
        if gpu.status != 0 && gpu.stderr.contains("Vulkan") { throw XCTSkip("no usable Vulkan device: \(gpu.stderr)") }
        XCTAssertEqual(gpu.status, 0, gpu.stderr)
        XCTAssertTrue(gpu.stderr.contains("edge stage: vulkan: "), gpu.stderr)
        XCTAssertTrue(gpu.stderr.contains("— --device gpu: "), gpu.stderr)
        let a = try observations(cpu), b = try observations(gpu)
        XCTAssertGreaterThan(a.count, 0)
        XCTAssertEqual(a.count, b.count, "observation count")
        for (x, y) in zip(a, b) {
            let p = try XCTUnwrap(x["corners"] as? [String: [Double]]), q = try XCTUnwrap(y["corners"] as? [String: [Double]])
            XCTAssertEqual(Set(p.keys), Set(q.keys))
            for (name, corner) in p {
                let other = try XCTUnwrap(q[name])
                XCTAssertLessThanOrEqual(hypot(corner[0] - other[0], corner[1] - other[1]), 0.5, "\(name): \(corner) vs \(other)")
            }
            XCTAssertEqual(try XCTUnwrap(x["confidence"] as? Double), try XCTUnwrap(y["confidence"] as? Double), accuracy: 1e-4)
        }

        let missing = try TestProcess.gpustyle(["detect", "--device", "gpu", scene],
                                               environment: ["GPUSTYLE_VULKAN_LOADER": "/nonexistent/libvulkan.so.1"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("GPU requested but unusable for the edge stage"), missing.stderr)
    }

    /// `--trace` shows the found quad's way: its sides among the lines, a candidate and the pick
    /// matching it, the lines in image pixels.
    func testTraceShowsWhereTheFoundQuadCameFrom() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let tracePath = folder.appendingPathComponent("trace.json").path
        let result = try TestProcess.gpustyle(["detect", "--json", "--trace", tracePath, scene])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let found = try XCTUnwrap((output["observations"] as? [[String: Any]])?.first?["corners"] as? [String: [Double]])
        let quad = ["topLeft", "topRight", "bottomRight", "bottomLeft"].map { Point(x: found[$0]![0], y: found[$0]![1]) }
        let trace = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tracePath)))
            as? [String: Any])
        let scale = try XCTUnwrap(trace["scale"] as? Int)
        XCTAssertEqual(scale, 2, "1280x720 is detected at half size")
        let lines = try XCTUnwrap(trace["lines"] as? [[Double]])
        for k in 0..<4 {
            let a = quad[k], b = quad[(k + 1) % 4]
            XCTAssertTrue(lines.contains { l in [a, b].allSatisfy { abs($0.x * cos(l[0]) + $0.y * sin(l[0]) - l[1]) < 2.0 * Double(scale) } },
                          "side \(k) of the observation is on a traced line")
        }
        XCTAssertFalse((try XCTUnwrap(trace["groups"] as? [[Int]])).isEmpty)
        func near(_ item: [String: Any]) -> Bool {
            guard let corners = item["corners"] as? [[Double]], corners.count == 4 else { return false }
            let points = corners.map { Point(x: $0[0], y: $0[1]) }
            return (0..<4).contains { r in (0..<4).allSatisfy { points[($0 + r) % 4].distance(to: quad[$0]) < 10 } }
        }
        XCTAssertTrue((try XCTUnwrap(trace["candidates"] as? [[String: Any]])).contains(where: near))
        XCTAssertTrue(near(try XCTUnwrap((trace["picks"] as? [[String: Any]])?.first)))

        let unwritable = try TestProcess.gpustyle(["detect", "--trace", "/nonexistent-folder/trace.json", scene])
        XCTAssertEqual(unwritable.status, 2, unwritable.stderr)
        XCTAssertEqual(unwritable.stderr.split(separator: "\n").count, 1, unwritable.stderr)
    }

    /// The traced lines are the working-map lines moved to image pixels.
    func testTracedLinesAreInImagePixels() {
        let line = DetectedLine(theta: 0.7, rho: 123.4, votes: 0)
        for scale in [1, 2, 3] {
            let traced = DetectionTrace.imageLine(line, scale: scale)
            let map = EdgeMap(width: 1, height: 1, scale: scale, magnitude: [0], gx: [0], gy: [0], edges: [0], strongThreshold: 0)
            for t in [-50.0, 0, 80] {
                let p = map.toImage(line.point(at: t))
                XCTAssertEqual(p.x * cos(traced.theta) + p.y * sin(traced.theta), traced.rho, accuracy: 1e-9, "scale \(scale)")
            }
        }
    }
}
