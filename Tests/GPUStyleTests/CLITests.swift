import Foundation
import XCTest
@testable import GPUStyle

/// The gpustyle command as a user runs it: exit codes, one-line errors, no partial output.
final class CLITests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    var photo: String { Fixtures.root.appendingPathComponent("photos/astronaut.png").path }

    /// Status 2, exactly one line on stderr mentioning `needle`, and no file at `output`.
    func assertUserError(_ arguments: [String], mentions needle: String, output: String? = nil,
                         environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try TestProcess.gpustyle(arguments, environment: environment)
        XCTAssertEqual(result.status, 2, "exit status for \(arguments): \(result.stderr)", file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one line on stderr, got: \(result.stderr)", file: file, line: line)
        XCTAssert(result.stderr.contains(needle), "stderr '\(result.stderr)' should mention '\(needle)'", file: file, line: line)
        if let output {
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output file may be left", file: file, line: line)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssert(leftovers.allSatisfy { !$0.contains(".tmp") && !$0.hasPrefix(".") }, "temp files left: \(leftovers)", file: file, line: line)
    }

    func testStylizesOnTheCPUPathLikeOnnxRuntime() throws {
        let out = path("out.png")
        let result = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", photo, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try ImageIO.read(path: out)
        let expected = try Fixtures.tensors("network/astronaut.gpsw")["style_2"]!.values
        // The network's tolerance plus half an 8-bit step for the PNG.
        assertClose(image.rgb, expected, tolerance: NetworkTests.tolerance + 0.5 / 255, "CLI output vs onnxruntime")
    }

    func testStdinToStdout() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: photo))
        let result = try TestProcess.gpustyle(["--style", "7", "--device", "cpu", "-", "-"], stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        let image = try ImageIO.decode(result.stdout, name: "stdout")
        XCTAssertEqual(image.width, 128)
        XCTAssertEqual(image.height, 128)
    }

    func testMissingFile() throws {
        try assertUserError(["--style", "2", path("missing.png"), path("o.png")], mentions: "missing.png", output: path("o.png"))
    }

    func testNotAnImage() throws {
        try Data("hello, not a picture\n".utf8).write(to: URL(fileURLWithPath: path("text.png")))
        try assertUserError(["--style", "2", path("text.png"), path("o.png")], mentions: "not a PNG, JPEG, HEIC, AVIF or WebP", output: path("o.png"))
    }

    func testTruncatedPNG() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: photo))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path("cut.png")))
        try assertUserError(["--style", "2", path("cut.png"), path("o.png")], mentions: "cut.png", output: path("o.png"))
    }

    func testTooSmallImage() throws {
        let small = Image(width: 16, height: 40, rgb: [Float](repeating: 0.3, count: 3 * 16 * 40), alpha: nil)
        try ImageIO.writePNG(small, to: path("small.png"))
        try assertUserError(["--style", "2", path("small.png"), path("o.png")], mentions: "at least 32x32", output: path("o.png"))
    }

    func testZeroSizedPNG() throws {
        try PNGHeader.make(width: 0, height: 0).write(to: URL(fileURLWithPath: path("empty.png")))
        try assertUserError(["--style", "2", path("empty.png"), path("o.png")], mentions: "empty.png", output: path("o.png"))
    }

    func testAbsurdSizeIsRefusedBeforeAllocating() throws {
        try PNGHeader.make(width: 100_000, height: 100_000).write(to: URL(fileURLWithPath: path("huge.png")))
        let start = Date()
        try assertUserError(["--style", "2", path("huge.png"), path("o.png")], mentions: "huge.png", output: path("o.png"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "must refuse from the header, not try to decode")
    }

    func testStyleOutOfRange() throws {
        try assertUserError(["--style", "26", photo, path("o.png")], mentions: "out of range", output: path("o.png"))
    }

    func testMalformedBlend() throws {
        try assertUserError(["--style", "3:0.5,x", photo, path("o.png")], mentions: "malformed style", output: path("o.png"))
        try assertUserError(["--style", "3:abc", photo, path("o.png")], mentions: "malformed style", output: path("o.png"))
    }

    func testBadStrength() throws {
        try assertUserError(["--strength", "1.5", photo, path("o.png")], mentions: "--strength", output: path("o.png"))
    }

    func testUnwritableOutput() throws {
        try assertUserError(["--style", "2", photo, path("no/such/folder/o.png")], mentions: "does not exist",
                            output: path("no/such/folder/o.png"))
    }

    func testUnknownOption() throws {
        let result = try TestProcess.gpustyle(["--style", "2", "--frobnicate", photo, path("o.png")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }

    func testGPURequestWithoutVulkanExitsTwo() throws {
        try assertUserError(["--style", "2", "--device", "gpu", photo, path("o.png")], mentions: "Vulkan",
                            output: path("o.png"), environment: ["GPUSTYLE_VULKAN_LOADER": "/nonexistent/libvulkan.so.1"])
    }

    func testAutoWithoutVulkanWarnsAndUsesTheCPU() throws {
        let out = path("o.png")
        let result = try TestProcess.gpustyle(["--style", "2", photo, out],
                                              environment: ["GPUSTYLE_VULKAN_LOADER": "/nonexistent/libvulkan.so.1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssert(result.stderr.hasPrefix("warning: Vulkan unavailable"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssert(FileManager.default.fileExists(atPath: out))
    }

    func testFolderInput() throws {
        let inputs = path("in"), outputs = path("out")
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        for name in ["astronaut", "coffee"] {
            try FileManager.default.copyItem(atPath: Fixtures.root.appendingPathComponent("photos/\(name).png").path,
                                             toPath: "\(inputs)/\(name).png")
        }
        let result = try TestProcess.gpustyle(["--style", "4", "--device", "cpu", inputs, "-o", outputs])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs).sorted(), [".gpustyle-manifest", "astronaut.png", "coffee.png"],
                       "the photos, and the records that make a run resumable")
    }

    func testContactSheet() throws {
        let out = path("sheet.png")
        let result = try TestProcess.gpustyle(["styles", "--sheet", photo, out, "--thumbnail", "64", "--device", "cpu"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let sheet = try ImageIO.read(path: out)
        // 27 cells (the photo and 26 styles) in 7 columns and 4 rows of 64-pixel thumbnails.
        XCTAssertEqual(sheet.width, 7 * 64 + 8 * 6)
        XCTAssertEqual(sheet.height, 4 * 64 + 5 * 6)
    }
}

/// A PNG holding only a signature and an IHDR chunk with the given size (valid CRC), for
/// testing that absurd or empty sizes are refused from the header.
enum PNGHeader {
    static func make(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data("IHDR".utf8)
        for value in [width, height] { ihdr.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, deflate, no filter, no interlace
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.append(contentsOf: withUnsafeBytes(of: UInt32(13).bigEndian, Array.init))
        png.append(ihdr)
        png.append(contentsOf: withUnsafeBytes(of: crc32(ihdr).bigEndian, Array.init))
        return png
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
