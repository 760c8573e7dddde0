import Foundation
import XCTest
@testable import GPUStyle

/// `--max-memory` through the real binary: a budget below the whole-image plan runs in tiles
/// with the same picture (within 1/255), and one below what tiles need is refused in one line,
/// exit 1, before any work, with no output file.
final class MemoryBudgetCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    func path(_ name: String) -> String { scratch.path(name) }

    /// A 1024x768 photo (the 128x96 fixture scaled up 8x, nearest): ~350 MB as a whole-image
    /// plan, ~100 MB in tiles.
    func bigPhoto() throws -> String {
        let small = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/coffee.png").path)
        let w = small.width * 8, h = small.height * 8
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 { for y in 0..<h { for x in 0..<w { rgb[(c * h + y) * w + x] = small.rgb[(c * small.height + y / 8) * small.width + x / 8] } } }
        let file = path("big.png")
        try ImageIO.writePNG(Image(width: w, height: h, rgb: rgb), to: file)
        return file
    }

    func testTightBudgetRunsInTilesWithTheSameResult() throws {
        let photo = try bigPhoto()
        let whole = try TestProcess.gpustyle(["--style", "5", "--device", "cpu", "-v", "--max-memory", "8G", photo, path("whole.png")])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertFalse(whole.stderr.contains("in tiles"), whole.stderr)
        let tiled = try TestProcess.gpustyle(["--style", "5", "--device", "cpu", "-v", "--max-memory", "200M", photo, path("tiled.png")])
        XCTAssertEqual(tiled.status, 0, tiled.stderr)
        XCTAssert(tiled.stderr.contains("in tiles"), tiled.stderr)
        let a = try ImageIO.read(path: path("whole.png")), b = try ImageIO.read(path: path("tiled.png"))
        XCTAssertEqual(a.width, b.width)
        let worst = zip(a.rgb, b.rgb).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1.0 / 255 + 1e-6, "tiles vs whole image, in 8-bit levels: \(worst * 255)")
    }

    func testBudgetTooSmallIsOneLineBeforeAnyWork() throws {
        let photo = try bigPhoto()
        let out = path("out.png")
        let result = try TestProcess.gpustyle(["--style", "5", "--device", "cpu", "--max-memory", "48M", photo, out])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssert(result.stderr.contains("big.png") && result.stderr.contains("--max-memory"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testBadMemorySizeIsAUsageError() throws {
        let result = try TestProcess.gpustyle(["--style", "5", "--max-memory", "lots", path("x.png"), path("y.png")])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssert(result.stderr.contains("memory size"), result.stderr)
    }

    func testMemorySizes() throws {
        XCTAssertEqual(try MemorySize.parse("1G"), 1 << 30)
        XCTAssertEqual(try MemorySize.parse("512M"), 512 << 20)
        XCTAssertEqual(try MemorySize.parse("1.5GiB"), 3 << 29)
        XCTAssertEqual(try MemorySize.parse("800000000"), 800_000_000)
        XCTAssertThrowsError(try MemorySize.parse("-1G"))
        XCTAssertThrowsError(try MemorySize.parse("inf"))
    }
}
