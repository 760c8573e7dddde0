import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle analyze`: several requests on one decoded photo give exactly what each command
/// gives on its own.
final class AnalyzeCLITests: XCTestCase {
    private func object(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func same(_ a: Any?, _ b: Any?, _ what: String) throws {
        let encode = { (v: Any?) throws -> Data in try JSONSerialization.data(withJSONObject: ["v": v ?? NSNull()], options: [.sortedKeys]) }
        XCTAssertEqual(try encode(a), try encode(b), what)
    }

    func testEveryRequestAsItsCommandGivesIt() throws {
        for photo in [Fixtures.root.appendingPathComponent("digits/notes-example.jpg").path,
                      FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path] {
            let run = try TestProcess.gpustyle(["analyze", "--json", "--device", "cpu", "--requests", "rectangles,faces,classify,digits", photo])
            XCTAssertEqual(run.status, 0, run.stderr)
            let all = try object(run.stdout)
            XCTAssertEqual(all["requests"] as? [String], ["rectangles", "faces", "classify", "digits"])
            XCTAssertEqual(Set((all["milliseconds"] as? [String: Double])?.keys.map { $0 } ?? []), ["rectangles", "faces", "classify", "digits"])
            let detect = try TestProcess.gpustyle(["detect", "--json", "--device", "cpu", photo])
            try same(all["rectangles"], try object(detect.stdout)["observations"], "rectangles")
            let faces = try TestProcess.gpustyle(["faces", "--json", "--device", "cpu", photo])
            try same(all["faces"], try object(faces.stdout)["faces"], "faces")
            let classify = try TestProcess.gpustyle(["classify", "--json", "--device", "cpu", photo])
            try same(all["classifications"], try object(classify.stdout)["classifications"], "classifications")
            let digits = try TestProcess.gpustyle(["digits", "--json", "--device", "cpu", photo])
            try same(all["notes"], try object(digits.stdout)["notes"], "notes")
        }
    }

    func testTextAndOverlay() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-\(UUID().uuidString).png")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let photo = Fixtures.root.appendingPathComponent("digits/notes-example.jpg").path
        let run = try TestProcess.gpustyle(["analyze", "--device", "cpu", "--requests", "digits,classify", "--overlay", out.path, photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = String(decoding: run.stdout, as: UTF8.self)
        // The four notes' digits, one line each, best detection first (the order is the detector's).
        XCTAssertTrue(text.hasPrefix("digits:\n  #1 "), text)
        let digits = text.split(separator: "\n").filter { $0.hasPrefix("  #") }.map { $0.split(separator: " ")[1] }
        XCTAssertEqual(Set(digits), ["4", "6", "8", "9"], text)
        XCTAssertTrue(text.contains("\nclassify:\n"), text)
        let drawn = try ImageIO.read(path: out.path), original = try ImageIO.read(path: photo)
        XCTAssertEqual([drawn.width, drawn.height], [original.width, original.height])
        XCTAssertGreaterThan(zip(drawn.rgb, original.rgb).filter { abs($0 - $1) > 0.2 }.count, 500)
    }

    func testBadRequestsAreOneLineAndStatusTwo() throws {
        let photo = Fixtures.root.appendingPathComponent("digits/notes-example.jpg").path
        for requests in ["faces,nose", "", "faces,,digits"] {
            let run = try TestProcess.gpustyle(["analyze", "--device", "cpu", "--requests", requests, photo])
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("--requests"), run.stderr)
        }
        let missing = try TestProcess.gpustyle(["analyze", "--device", "cpu", "/nonexistent/photo.jpg"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/photo.jpg"), missing.stderr)
    }
}
