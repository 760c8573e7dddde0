import Foundation
import XCTest

/// `gpustyle bench --no-network`: the rectangle rows alone, which tools/bench-vs-peers times
/// against OpenCV without paying for the network runs.
final class BenchCLITests: XCTestCase {
    func testNoNetworkTimesOnlyTheRectangleStages() throws {
        let result = try TestProcess.gpustyle(["bench", "--no-network", "--device", "cpu", "--runs", "1", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual((object["results"] as? [Any])?.count, 0, "no network rows")
        XCTAssertEqual((object["paths"] as? [Any])?.count, 0, "no network backend was set up")
        let rows = try XCTUnwrap(object["rectangles"] as? [[String: Any]])
        XCTAssertEqual(rows.map { "\($0["work"]!) \($0["size"]!) \($0["path"]!)" },
                       ["detect 640x480 cpu", "detect 1920x1080 cpu", "warp 1920x1080->1024x768 cpu"])
        XCTAssertTrue(rows.allSatisfy { ($0["median_ms"] as? Double ?? 0) > 0 })
    }

    func testNoNetworkWithNoRectanglesIsAUsageError() throws {
        let result = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }
}
