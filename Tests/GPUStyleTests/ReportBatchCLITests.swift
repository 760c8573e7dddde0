import Foundation
import XCTest
@testable import GPUStyle

/// The reporting commands over folders on many machines: `--shard` splits the photos, and
/// `--report-folder` makes a run resumable (one report per photo, skipped when finished from the
/// same photo and options); detect and analyze take folders like the others.
final class ReportBatchCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    func photos(_ names: [String], folder: String = "in") throws -> String {
        let path = scratch.path(folder)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let source = ["coffee", "astronaut"].map { Fixtures.root.appendingPathComponent("photos/\($0).png").path }
        for (index, name) in names.enumerated() { try FileManager.default.copyItem(atPath: source[index % 2], toPath: "\(path)/\(name)") }
        return path
    }

    func jsonLines(_ data: Data) -> [[String: Any]] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func summary(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    func testShardsOfAClassifyRunCoverTheFolderOnce() throws {
        let names = (0..<10).map { "p\($0).png" }
        let input = try photos(names)
        var seen: [String] = []
        for index in 0..<3 {
            let result = try TestProcess.gpustyle(["classify", "--json", "--top", "1", "--device", "cpu", "--shard", "\(index)/3", input])
            XCTAssertEqual(result.status, 0, result.stderr)
            seen += jsonLines(result.stdout).map { ($0["file"] as! NSString).lastPathComponent }
        }
        XCTAssertEqual(seen.sorted(), names)
    }

    func testDetectReportFolderIsResumable() throws {
        let input = try photos(["a.png", "b.png", "c.png"])
        let reports = scratch.path("reports")
        let first = try TestProcess.gpustyle(["detect", "--json", "--device", "cpu", "--report-folder", reports,
                                              "--summary", scratch.path("s1.json"), input])
        XCTAssertLessThanOrEqual(first.status, 1, first.stderr)  // 1: a photo with no rectangle
        XCTAssertTrue(first.stdout.isEmpty, "reports go to the folder")
        let files = try FileManager.default.contentsOfDirectory(atPath: reports).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(files, ["a.png.json", "b.png.json", "c.png.json"])
        let report = jsonLines(try Data(contentsOf: URL(fileURLWithPath: "\(reports)/b.png.json")))
        XCTAssertEqual(report.count, 1)
        XCTAssertEqual(report[0]["file"] as? String, "\(input)/b.png")
        XCTAssertNotNil(report[0]["observations"] as? [Any])
        XCTAssertEqual(try summary(scratch.path("s1.json"))["done"] as? Int, 3)

        let again = try TestProcess.gpustyle(["detect", "--json", "--device", "cpu", "--report-folder", reports,
                                              "--summary", scratch.path("s2.json"), input])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try summary(scratch.path("s2.json"))["skipped"] as? Int, 3)
        // Other options, other reports.
        let other = try TestProcess.gpustyle(["detect", "--json", "--device", "cpu", "--maximum-observations", "3",
                                              "--report-folder", reports, "--summary", scratch.path("s3.json"), input])
        XCTAssertLessThanOrEqual(other.status, 1, other.stderr)
        XCTAssertEqual(try summary(scratch.path("s3.json"))["done"] as? Int, 3)
    }

    func testAnalyzeTakesFoldersAndNamesEachPhoto() throws {
        let input = try photos(["a.png", "b.png"])
        let result = try TestProcess.gpustyle(["analyze", "--requests", "classify", "--json", "--device", "cpu", input])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(jsonLines(result.stdout).map { $0["file"] as? String }, ["\(input)/a.png", "\(input)/b.png"])
        let overlay = try TestProcess.gpustyle(["analyze", "--requests", "classify", "--overlay", scratch.path("o.png"), input])
        XCTAssertEqual(overlay.status, 2)
        XCTAssertTrue(overlay.stderr.contains("--overlay needs exactly one photo"), overlay.stderr)
    }

    func testTwoPhotosOfOneNameCannotShareAReportFolder() throws {
        let one = try photos(["a.png"], folder: "one"), two = try photos(["a.png"], folder: "two")
        let result = try TestProcess.gpustyle(["classify", "--device", "cpu", "--report-folder", scratch.path("r"), one, two])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("would both be reported as a.png.txt"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }
}
