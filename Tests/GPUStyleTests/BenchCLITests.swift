import Foundation
import XCTest
@testable import GPUStyle

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
                       ["detect 640x480 cpu", "detect + finder 640x480 cpu", "finder proposals 640x480 cpu",
                        "detect 1920x1080 cpu", "detect + finder 1920x1080 cpu", "finder proposals 1920x1080 cpu",
                        "warp 1920x1080->1024x768 cpu"])
        XCTAssertTrue(rows.allSatisfy { ($0["median_ms"] as? Double ?? 0) > 0 })
    }

    /// `bench --digits photo` (tools/bench_digits.sh): the whole digits request, the CPU path and
    /// Vulkan (lavapipe) in one run, Vulkan's readings checked against the CPU path's.
    func testDigitsRows() throws {
        let photo = Fixtures.root.appendingPathComponent("digits/notes-example.jpg").path
        let bench = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles", "--digits", photo, "--runs", "1", "--json"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bench.stdout) as? [String: Any])
        let rows = try XCTUnwrap(object["rectangles"] as? [[String: Any]])
        XCTAssertEqual(rows.first.map { "\($0["work"]!) \($0["size"]!) \($0["path"]!)" }, "digits (4 notes) 960x540 cpu")
        for row in rows.dropFirst() {
            XCTAssertTrue((row["parity"] as? String ?? "").hasPrefix("same readings"), "\(row)")
        }
    }

    /// `bench --classify` (tools/bench_classify.py reads its row) and `profile --network classify`.
    func testClassifierRowsAndProfile() throws {
        let bench = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles", "--classify", "--device", "cpu",
                                              "--runs", "1", "--json"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bench.stdout) as? [String: Any])
        let rows = try XCTUnwrap(object["rectangles"] as? [[String: Any]])
        XCTAssertEqual(rows.map { "\($0["work"]!) \($0["size"]!) \($0["path"]!)" }, ["classify 224x224 cpu"])
        XCTAssertGreaterThan(rows[0]["median_ms"] as? Double ?? 0, 0)

        let profile = try TestProcess.gpustyle(["profile", "--network", "classify", "--device", "cpu", "--runs", "1",
                                                "--skip-limits", "--json"])
        XCTAssertEqual(profile.status, 0, profile.stderr)
        let report = try XCTUnwrap(((try JSONSerialization.jsonObject(with: profile.stdout) as? [String: Any])?["reports"]
                                    as? [[String: Any]])?.first)
        let steps = try XCTUnwrap(report["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 22, "MobileNetV2's lowered plan, one row per step: the stem, 17 blocks, the head")
        XCTAssertEqual(steps.filter { ($0["kind"] as? String)?.hasPrefix("inverted_residual 3x3") == true }.count, 17)

        // The face networks: the detector at a size rounded up to multiples of 32, the mesh at 192.
        for (arguments, size) in [(["--network", "faces", "--size", "100x70"], "128x96"), (["--network", "mesh"], "192x192")] {
            let run = try TestProcess.gpustyle(["profile", "--device", "cpu", "--runs", "1", "--skip-limits", "--json"] + arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
            let report = try XCTUnwrap(((try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["reports"]
                                        as? [[String: Any]])?.first)
            XCTAssertEqual(report["size"] as? String, size)
            XCTAssertGreaterThan((report["steps"] as? [[String: Any]])?.count ?? 0, 40)
        }
    }

    /// `profile --network text-det|text-rec` (sides rounded up to multiples of 32, the
    /// recogniser's width to a multiple of 8 at its 48-pixel height) and `bench --text`
    /// (tools/bench_text_onnxruntime.py reads its network rows).
    func testTextProfilesAndBenchRows() throws {
        for (arguments, size) in [(["--network", "text-det", "--size", "100x70"], "128x96"),
                                  (["--network", "text-rec", "--size", "100x48"], "104x48")] {
            let run = try TestProcess.gpustyle(["profile", "--device", "cpu", "--runs", "1", "--skip-limits", "--json"] + arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
            let report = try XCTUnwrap(((try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["reports"]
                                        as? [[String: Any]])?.first)
            XCTAssertEqual(report["size"] as? String, size)
            let steps = try XCTUnwrap(report["steps"] as? [[String: Any]])
            XCTAssertGreaterThan(steps.count, 40)
            // Graph convolutions name their channels, size and fused activation.
            XCTAssertTrue(steps.contains { ($0["layer"] as? String ?? "").hasSuffix("+gelu") }, "\(steps.map { $0["layer"]! })")
        }
        let table = try TestProcess.gpustyle(["profile", "--network", "text-rec", "--device", "cpu", "--runs", "1", "--skip-limits"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(String(decoding: table.stdout, as: UTF8.self).contains("slowest 15 of "))
        let wrongHeight = try TestProcess.gpustyle(["profile", "--network", "text-rec", "--size", "320x32"])
        XCTAssertEqual(wrongHeight.status, 2, wrongHeight.stderr)

        let bench = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles", "--text", "--device", "cpu",
                                              "--runs", "1", "--json"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bench.stdout) as? [String: Any])
        let rows = try XCTUnwrap(object["rectangles"] as? [[String: Any]])
        let works = rows.map { $0["work"] as! String }
        XCTAssertEqual(rows.map { "\($0["size"]!) \($0["path"]!)" }.prefix(2), ["960x544 cpu", "320x48 cpu"])
        XCTAssertEqual(Array(works.prefix(2)), ["text det network", "text rec network"])
        XCTAssertTrue(works[2].hasPrefix("text detect (11 regions)"), works[2])
        XCTAssertTrue(works[3].hasPrefix("text recognise (11 lines, "), works[3])
        XCTAssertEqual(Array(works.dropFirst(4)), ["text read", "  read: det resize", "  read: det network", "  read: det decode",
                                                   "  read: rec warp", "  read: rec network", "  read: rec CTC",
                                                   "  read: rec char boxes", "  read: rest"])
        XCTAssertTrue(rows.prefix(10).allSatisfy { ($0["median_ms"] as? Double ?? 0) > 0 }, "\(rows)")
        let networks = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles", "--text", "--text-networks-only",
                                                 "--device", "cpu", "--runs", "1", "--json"])
        XCTAssertEqual(networks.status, 0, networks.stderr)
        let networkRows = try XCTUnwrap((try JSONSerialization.jsonObject(with: networks.stdout) as? [String: Any])?["rectangles"]
                                        as? [[String: Any]])
        XCTAssertEqual(networkRows.map { $0["work"] as! String }, ["text det network", "text rec network"])
        let missing = try TestProcess.gpustyle(["bench", "--text-photo", "x.png", "--no-network", "--no-rectangles"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
    }

    func testNoNetworkWithNoRectanglesIsAUsageError() throws {
        let result = try TestProcess.gpustyle(["bench", "--no-network", "--no-rectangles"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
    }

    /// `--isa` caps the CPU kernels, and the report names the set that ran; a name that is no
    /// instruction set is one line and status 2.
    func testInstructionSetCapIsReported() throws {
        let capped = try TestProcess.gpustyle(["bench", "--isa", "portable", "--device", "cpu", "--no-rectangles",
                                               "--sizes", "64x64", "--runs", "1", "--json"])
        XCTAssertEqual(capped.status, 0, capped.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: capped.stdout) as? [String: Any])
        let device = try XCTUnwrap((object["paths"] as? [[String: Any]])?.first?["device"] as? String)
        XCTAssertTrue(device.contains("portable") && !device.contains("avx"), device)

        let bad = try TestProcess.gpustyle(["profile", "--isa", "sse9", "--device", "cpu"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--isa"), bad.stderr)
    }

    /// `bench --network all`: every network on the CPU path and on each Vulkan device (lavapipe
    /// here), the networks that take a size at each of --sizes (rounded as they run: style to
    /// multiples of 4, faces and text-det to 32), the others once at their fixed size; times
    /// positive and ordered, GFLOP/s the network's FLOPs over the median, "vs cpu" the ratio of
    /// medians, and every Vulkan output within the tolerance of the CPU path's.
    func testNetworkRowsOnEveryPath() throws {
        let result = try TestProcess.gpustyle(["bench", "--network", "all", "--sizes", "64x64,100x70", "--runs", "2", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let paths = try XCTUnwrap(object["paths"] as? [[String: Any]])
        let usable = paths.filter { $0["error"] == nil }.map { $0["path"] as! String }
        XCTAssertEqual(usable.first, "cpu")
        XCTAssertTrue(usable.contains { $0.hasPrefix("vulkan") }, "lavapipe is a Vulkan path here: \(paths)")
        let rows = try XCTUnwrap(object["networks"] as? [[String: Any]])
        let expected = ["style 64x64", "style 100x72", "classify 224x224", "faces 64x64", "faces 128x96", "mesh 192x192",
                        "digits 28x28", "text-det 64x64", "text-det 128x96", "text-rec 320x48"]
        for path in usable {
            let mine = rows.filter { $0["path"] as? String == path }
            XCTAssertEqual(mine.map { "\($0["network"]!) \($0["size"]!)" }.sorted(), expected.sorted(), path)
        }
        for row in rows {
            let what = "\(row["network"]!) \(row["size"]!) \(row["path"]!)"
            XCTAssertNil(row["error"], what)
            let first = row["first_ms"] as? Double ?? 0, least = row["min_ms"] as? Double ?? 0
            let median = row["median_ms"] as? Double ?? 0, p95 = row["p95_ms"] as? Double ?? 0
            XCTAssertTrue(first > 0 && least > 0 && least <= median && median <= p95, "\(what): \(row)")
            XCTAssertEqual(row["runs"] as? Int, 2, what)
            let flops = row["flops"] as? Double ?? 0
            XCTAssertGreaterThan(flops, 0, what)
            XCTAssertEqual(row["gflops"] as? Double ?? 0, flops / (median * 1e6), accuracy: 1e-9 * flops, what)
            let cpu = try XCTUnwrap(rows.first { $0["path"] as? String == "cpu" && $0["network"] as? String == row["network"] as? String
                                                   && $0["size"] as? String == row["size"] as? String })
            XCTAssertEqual(row["vs_cpu"] as? Double ?? 0, median / (cpu["median_ms"] as! Double), accuracy: 1e-9, what)
            if row["path"] as? String == "cpu" {
                XCTAssertNil(row["difference"], "the CPU path is the reference: \(what)")
            } else {
                XCTAssertLessThanOrEqual(try XCTUnwrap(row["difference"] as? Double, what), 1e-2, what)
            }
        }
        // The style network's FLOPs are the plan's at the rounded size: 4x the pixels, 4x the work.
        let style = rows.filter { $0["network"] as? String == "style" && $0["path"] as? String == "cpu" }
        XCTAssertEqual(style.map { $0["flops"] as! Double }[0] * 4,
                       Double(try NetworkWorkload.make(.style, width: 128, height: 128).flops), accuracy: 1)

        let table = try TestProcess.gpustyle(["bench", "--network", "digits,mesh", "--device", "cpu", "--runs", "1"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let lines = String(decoding: table.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("digits 28x28") || $0.hasPrefix("mesh 192x192") }.count, 2, "\(lines)")
    }

    /// --network's refusals: an unknown name, and the old per-work flags beside it (status 2,
    /// one line).
    func testNetworkRefusals() throws {
        for arguments in [["--network", "faces,tpu"], ["--network", ""], ["--network", "faces", "--classify"],
                          ["--network", "style", "--no-rectangles"]] {
            let result = try TestProcess.gpustyle(["bench"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
    }
}
