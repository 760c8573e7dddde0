import Foundation
import XCTest
@testable import GPUStyle

/// Folder mode's naming rule, its refusal to overwrite the originals, and a batch that goes on
/// past a bad photo (exit status 1: some inputs failed). Shards and resuming: ResumableFolderCLITests.
final class FolderJobCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    func photos(_ names: [String]) throws -> String {
        let folder = scratch.path("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let photo = Fixtures.root.appendingPathComponent("photos/coffee.png").path
        for name in names { try FileManager.default.copyItem(atPath: photo, toPath: "\(folder)/\(name)") }
        return folder
    }

    func testNamingRule() throws {
        XCTAssertEqual(try FolderOutputNames.plan(["a.jpg", "b.jpeg", "c.png"]), ["a.png", "b.png", "c.png"])
        XCTAssertEqual(try FolderOutputNames.plan(["a.jpg", "a.png", "b.JPG"]), ["a.jpg.png", "a.png", "b.png"])
        XCTAssertThrowsError(try FolderOutputNames.plan(["a.jpg", "a.jpg.png", "a.png"])) { error in
            XCTAssertTrue("\(error)".contains("a.jpg, a.jpg.png"), "\(error)")
        }
    }

    func testSameStemsGetDistinctOutputs() throws {
        let input = try photos(["a.png", "a.jpg"])
        let result = try TestProcess.gpustyle(["--style", "1", "--device", "cpu", input, "-o", scratch.path("out")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).filter { !$0.hasPrefix(".") }.sorted(), ["a.jpg.png", "a.png"])
    }

    func testUnresolvableCollisionIsRefusedBeforeAnyWork() throws {
        let input = try photos(["a.png", "a.jpg", "a.jpg.png"])
        let result = try TestProcess.gpustyle(["--style", "1", "--device", "cpu", input, "-o", scratch.path("out")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("same file a.jpg.png"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("out")))
    }

    func testOutputFolderEqualToInputIsRefused() throws {
        let input = try photos(["a.png"])
        let before = try Data(contentsOf: URL(fileURLWithPath: "\(input)/a.png"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("alias"), withDestinationPath: "in")
        for output in [input, input + "/", scratch.path("alias"), scratch.path("in/../in")] {
            let result = try TestProcess.gpustyle(["--style", "1", "--device", "cpu", input, "-o", output])
            XCTAssertEqual(result.status, 2, "\(output): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("is the input folder"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(input)/a.png")), before, "the original is untouched")
    }

    func testBadPhotoIsReportedAndTheBatchGoesOn() throws {
        let input = try photos(["a.png", "c.png"])
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: "\(input)/b.png"))
        let out = scratch.path("new/out")
        let result = try TestProcess.gpustyle(["--style", "1", "--device", "cpu", "-v", input, "-o", out])
        XCTAssertEqual(result.status, 1, "some inputs of a batch failed: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("created output folder \(out)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("\(input)/b.png: not a PNG, JPEG, HEIC, AVIF or WebP"), result.stderr)
        XCTAssertTrue(result.stderr.contains("1 of 3 images failed"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") }.sorted(), ["a.png", "c.png"])
    }

    /// A write that fails (here: the output is a folder of that name) is counted too; the
    /// other photos are still written.
    func testFailedWriteIsReportedAndTheBatchGoesOn() throws {
        let input = try photos(["a.png", "b.png"])
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: "\(out)/a.png", withIntermediateDirectories: true)
        let result = try TestProcess.gpustyle(["--style", "1", "--device", "cpu", input, "-o", out])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(out)/a.png: is a folder"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(out)/b.png"))
    }
}
