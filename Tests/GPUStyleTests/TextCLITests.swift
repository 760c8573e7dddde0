import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle text` through the binary on the committed text scenes (tools/make_text_scenes.py:
/// a sign, a poster, a label, a document page, text on a photo, and a picture without text,
/// with their truth).
final class TextCLITests: XCTestCase {
    var folder: URL { Fixtures.root.appendingPathComponent("text") }

    struct Truth {
        let file: String
        let lines: [String]
    }

    func truths() throws -> [Truth] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") && $0 != "index.json" }
        return try files.sorted().map { name in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name))) as! [String: Any]
            return Truth(file: object["file"] as! String, lines: (object["lines"] as! [[String: Any]]).map { $0["string"] as! String })
        }
    }

    func objects(_ stdout: Data) throws -> [[String: Any]] {
        try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Every scene of the folder in one run: at least 85 % of the truth's lines read exactly
    /// (measured: 26 of 28), each read line's characters one per non-space character with a box
    /// inside the photo, and the scene without text giving no line (exit status 1 for it).
    func testReadsTheScenes() throws {
        let truths = try truths()
        let run = try TestProcess.gpustyle(["text", "--json", "--device", "cpu", folder.path])
        XCTAssertEqual(run.status, 1, "one scene has no text: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains("no text found"), run.stderr)
        let objects = try objects(run.stdout)
        XCTAssertEqual(objects.count, truths.count)
        var expected = 0, exact = 0
        for object in objects {
            let file = URL(fileURLWithPath: object["file"] as! String).lastPathComponent
            let truth = try XCTUnwrap(truths.first { $0.file == file }, file)
            let (width, height) = (object["width"] as! Double, object["height"] as! Double)
            let lines = try XCTUnwrap(object["lines"] as? [[String: Any]])
            let read = lines.map { $0["string"] as! String }
            expected += truth.lines.count
            exact += truth.lines.filter(read.contains).count
            if truth.lines.isEmpty { XCTAssertEqual(read, [], file) }
            for line in lines {
                let string = line["string"] as! String
                let characters = try XCTUnwrap(line["characters"] as? [[String: Any]])
                XCTAssertEqual(characters.map { $0["character"] as! String }.joined(), string.replacingOccurrences(of: " ", with: ""), file)
                XCTAssertGreaterThanOrEqual(line["confidence"] as! Double, 0.5)
                for quad in [line["quad"]] + characters.map({ $0["quad"] }) {
                    let corners = try XCTUnwrap(quad as? [[Double]])
                    XCTAssertEqual(corners.count, 4)
                    for c in corners {
                        XCTAssertTrue((-20...width + 20).contains(c[0]) && (-20...height + 20).contains(c[1]), "\(file) \(string) \(c)")
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(Double(exact) / Double(expected), 0.85, "\(exact) of \(expected) lines read exactly")
    }

    /// Vulkan reads what the CPU path reads (the networks agree within 2e-5: TextModelParityTests).
    func testVulkanReadsTheSame() throws {
        let photo = folder.appendingPathComponent("scene-0001.jpg").path
        let cpu = try TestProcess.gpustyle(["text", "--device", "cpu", photo])
        let gpu = try TestProcess.gpustyle(["text", "--device", "gpu", photo])
        if gpu.status != 0 && gpu.stderr.contains("Vulkan") { throw XCTSkip("no usable Vulkan device: \(gpu.stderr)") }
        XCTAssertEqual(cpu.status, 0, cpu.stderr)
        XCTAssertEqual(gpu.status, 0, gpu.stderr)
        func strings(_ out: Data) -> [Substring] {
            String(decoding: out, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "(confidence")[0] }
        }
        XCTAssertEqual(strings(cpu.stdout), strings(gpu.stdout))
        XCTAssertFalse(strings(cpu.stdout).isEmpty)
    }

    func testDetectOnlyOverlayAndStdin() throws {
        let photo = folder.appendingPathComponent("scene-0001.jpg")
        let overlay = FileManager.default.temporaryDirectory.appendingPathComponent("text-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: overlay) }
        let run = try TestProcess.gpustyle(["text", "--json", "--detect-only", "--device", "cpu", "--overlay", overlay, "-"],
                                           stdin: try Data(contentsOf: photo))
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try objects(run.stdout).first)
        XCTAssertEqual(object["file"] as? String, "-")
        let lines = try XCTUnwrap(object["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines.allSatisfy { $0["string"] == nil && $0["score"] is Double })
        let drawn = try ImageIO.read(path: overlay)
        let original = try ImageIO.read(path: photo.path)
        XCTAssertEqual([drawn.width, drawn.height], [original.width, original.height])
        XCTAssertNotEqual(drawn.rgb, original.rgb)
    }

    func testBadInputIsOneLineAndStatusTwo() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: bad) }
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).write(to: bad)
        let run = try TestProcess.gpustyle(["text", "--device", "cpu", bad.path])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains(bad.lastPathComponent), run.stderr)
        XCTAssertTrue(run.stdout.isEmpty)
    }

    func testAnalyzeRunsTheTextRequest() throws {
        let photo = folder.appendingPathComponent("scene-0001.jpg").path
        let run = try TestProcess.gpustyle(["analyze", "--requests", "text,classify", "--json", "--device", "cpu", photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let lines = try XCTUnwrap(object["text"] as? [[String: Any]])
        XCTAssertTrue(lines.contains { $0["string"] as? String == "OFFER." }, "\(lines)")
        XCTAssertNotNil(object["classifications"])
    }
}
