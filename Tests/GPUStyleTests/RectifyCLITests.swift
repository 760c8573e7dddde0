import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle rectify` and `gpustyle --in-place-rectangle` with given quads: results, and bad input
/// (exit 2, one line on stderr, no output file).
final class RectifyCLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-rectify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    var photo: String { Fixtures.root.appendingPathComponent("photos/astronaut.png").path }
    let quadText = "20.5,15,100,25.25,95,110,15,100"
    var quad: Quad {
        Quad(topLeft: Point(x: 20.5, y: 15), topRight: Point(x: 100, y: 25.25), bottomRight: Point(x: 95, y: 110), bottomLeft: Point(x: 15, y: 100))
    }

    func assertUserError(_ arguments: [String], mentions needle: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let output = path("out.png")
        let result = try TestProcess.gpustyle(arguments + [photo, output])
        XCTAssertEqual(result.status, 2, "exit status for \(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line on stderr, got: \(result.stderr)", file: file, line: line)
        XCTAssert(result.stderr.contains(needle), "stderr '\(result.stderr)' should mention '\(needle)'", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output file may be left", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no leftovers", file: file, line: line)
    }

    func testRectifyWithQuad() throws {
        let out = path("rect.png")
        let result = try TestProcess.gpustyle(["rectify", "--device", "cpu", "--quad", quadText, photo, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try ImageIO.read(path: out)
        let expected = try PerspectiveCorrection.rectify(try ImageIO.read(path: photo), quad: quad)
        XCTAssertEqual(image.width, quad.rectifiedSize.width)
        XCTAssertEqual(image.height, quad.rectifiedSize.height)
        assertClose(image.rgb, expected.rgb, tolerance: 0.5 / 255 + 1e-6, "CLI rectify vs library")
    }

    func testRectifySizeBicubicAndNegativeCorners() throws {
        let out = path("rect.png")
        let result = try TestProcess.gpustyle(["rectify", "--quad", "-3.5,-2,100,4,120,90,2,127", "--size", "64x48", "--bicubic", photo, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try ImageIO.read(path: out)
        XCTAssertEqual([image.width, image.height], [64, 48])
        let q = Quad(topLeft: Point(x: -3.5, y: -2), topRight: Point(x: 100, y: 4), bottomRight: Point(x: 120, y: 90), bottomLeft: Point(x: 2, y: 127))
        let expected = try PerspectiveCorrection.rectify(try ImageIO.read(path: photo), quad: q, width: 64, height: 48, interpolation: .bicubic)
        assertClose(image.rgb, expected.rgb, tolerance: 0.5 / 255 + 1e-6, "CLI bicubic rectify vs library")
    }

    func testRectifyBadInput() throws {
        try assertUserError(["rectify", "--quad", "1,2,3"], mentions: "8 comma-separated numbers")
        try assertUserError(["rectify", "--quad", "1,2,3,4,5,6,7,x"], mentions: "8 comma-separated numbers")
        try assertUserError(["rectify", "--quad", "0,0,100,0,100,nan,0,100"], mentions: "finite")
        try assertUserError(["rectify", "--quad", "0,0,50,50,100,100,0,100"], mentions: "collinear")
        try assertUserError(["rectify", "--quad", "0,0,100,0,0,100,100,100"], mentions: "self-intersecting")
        try assertUserError(["rectify", "--quad", "0,0,100,0,30,30,0,100"], mentions: "not convex")
        try assertUserError(["rectify", "--quad", "0,0,0,100,100,100,100,0"], mentions: "counter-clockwise")
        try assertUserError(["rectify", "--quad", "10,10,10.5,10,10.5,10.5,10,10.5"], mentions: "zero area")
        try assertUserError(["rectify", "--quad", "0,0,1000,0,1000,1000,0,1000"], mentions: "far outside")
        try assertUserError(["rectify", "--quad", quadText, "--size", "64"], mentions: "--size")
        try assertUserError(["rectify", "--quad", quadText, "--size", "1x64"], mentions: "out of range")
        try assertUserError(["rectify", "--quad", quadText, "--size", "0x0"], mentions: "out of range")
        try assertUserError(["rectify", "--quad", quadText, "--size", "100000x10"], mentions: "out of range")
        try assertUserError(["rectify", "--quad", quadText, "--size", "-5x10"], mentions: "--size")
    }

    func testRectifyMissingInput() throws {
        let out = path("o.png")
        let result = try TestProcess.gpustyle(["rectify", "--quad", quadText, path("missing.png"), out])
        XCTAssertEqual(result.status, 2)
        XCTAssert(result.stderr.contains("missing.png"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testInPlaceWithQuad() throws {
        let out = path("in-place.png")
        let result = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", "--in-place-rectangle", "--quad", quadText, photo, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try ImageIO.read(path: out), original = try ImageIO.read(path: photo)
        XCTAssertEqual([image.width, image.height], [original.width, original.height])
        let mask = try QuadMask(quad: quad)
        var changed = 0
        for y in 0..<128 {
            for x in 0..<128 {
                let d = mask.signedDistance(x: Double(x), y: Double(y))
                for c in 0..<3 {
                    let i = (c * 128 + y) * 128 + x
                    if d < -1 { XCTAssertEqual(image.rgb[i], original.rgb[i], "outside (\(x), \(y)) unchanged") }
                    if d > 1 && abs(image.rgb[i] - original.rgb[i]) > 0.02 { changed += 1 }
                }
            }
        }
        XCTAssertGreaterThan(changed, 3000, "the picture inside the quad must be stylized")
    }

    func testInPlaceBadInput() throws {
        try assertUserError(["--style", "2", "--fallback", "whole"], mentions: "--in-place-rectangle")
        try assertUserError(["--style", "2", "--quad", quadText], mentions: "--in-place-rectangle")
        try assertUserError(["--style", "2", "--in-place-rectangle", "--quad", "1,2,3,4"], mentions: "8 comma-separated")
        try assertUserError(["--style", "2", "--in-place-rectangle", "--fallback", "sometimes"], mentions: "fallback")
        try assertUserError(["--style", "2", "--in-place-rectangle", "--quad", "0,0,1000,0,1000,1000,0,1000"], mentions: "far outside")
        try assertUserError(["--style", "2", "--minimum-size", "0.5"], mentions: "only apply with --in-place-rectangle")
        try assertUserError(["--style", "2", "--in-place-rectangle", "--quad", quadText, "--minimum-size", "0.5"],
                            mentions: "only without --quad")
        try assertUserError(["--style", "2", "--in-place-rectangle", "--quadrature-tolerance", "60"], mentions: "quadrature-tolerance")
        try assertUserError(["rectify", "--quad", quadText, "--maximum-aspect-ratio", "0.9"], mentions: "only without --quad")
        try assertUserError(["rectify", "--minimum-size", "2"], mentions: "minimum-size")
    }

    /// Without --quad, rectify and the in-place edit detect with Vision's options: the picture in
    /// scene 000 (about 0.56 of the shorter side) is found by default and not with
    /// --minimum-size 0.9, which must then end in "no rectangle" (exit 1), not in a crop.
    func testDetectionOptionsReachRectifyAndInPlace() throws {
        let scene = Fixtures.root.appendingPathComponent("rectangles/000.png").path
        let out = path("r.png")
        let found = try TestProcess.gpustyle(["rectify", "--device", "cpu", scene, out])
        XCTAssertEqual(found.status, 0, found.stderr)
        try FileManager.default.removeItem(atPath: out)
        for command in [["rectify", "--device", "cpu"], ["--style", "2", "--device", "cpu", "--in-place-rectangle"]] {
            let result = try TestProcess.gpustyle(command + ["--minimum-size", "0.9", scene, out])
            XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)")
            XCTAssert(result.stderr.contains("no rectangle found"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    /// Without Vulkan, `auto` chooses the detector's edge stage and the warp by the same rules:
    /// both on the CPU, and the one cause ("Vulkan unavailable") is printed once, not per stage;
    /// `-v` names each stage's choice. The result is `--device cpu`'s.
    func testAutoWithoutVulkanWarnsOnceForEveryStage() throws {
        let scene = Fixtures.root.appendingPathComponent("rectangles/000.png").path
        let auto = path("auto.png"), cpu = path("cpu.png")
        let result = try TestProcess.gpustyle(["rectify", "-v", scene, auto], environment: ["GPUSTYLE_VULKAN_LOADER": "/nonexistent/libvulkan.so.1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("warning:") }.count, 1, result.stderr)
        // (-v's first line says how the photo was decoded; the warning comes before any stage.)
        XCTAssertTrue(lines.first { !$0.hasPrefix(scene) }?.hasPrefix("warning: Vulkan unavailable") == true, result.stderr)
        XCTAssertTrue(result.stderr.contains("edge stage: cpu — Vulkan unavailable"), result.stderr)
        XCTAssertTrue(result.stderr.contains("warp: cpu"), result.stderr)
        let reference = try TestProcess.gpustyle(["rectify", "--device", "cpu", scene, cpu])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: auto)), try Data(contentsOf: URL(fileURLWithPath: cpu)))
    }
}
