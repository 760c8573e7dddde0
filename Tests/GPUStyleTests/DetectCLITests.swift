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
                          ["detect", "/nonexistent.png"], ["detect", "--maximum-observations", "x", scene]] {
            let result = try TestProcess.gpustyle(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
    }
}
