import Foundation
import XCTest
@testable import GPUStyle

/// A folder run spread over shards and started again: each photo done by exactly one shard,
/// finished outputs skipped, changed inputs or outputs redone, a killed run finished by the next
/// with the same pixels as one run and nothing left behind; `--summary` and the exit statuses.
final class ResumableFolderCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    /// `count` copies of a 224x224 photo, each made different by one pixel row of its own.
    func photos(_ count: Int, names: (Int) -> String = { "photo \($0).png" }) throws -> String {
        let folder = scratch.path("in")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var image = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/coffee.png").path)
        for index in 0..<count {
            for x in 0..<image.width { image.rgb[x] = Float((index * 37 + x) % 256) / 255 }
            try ImageIO.writePNG(image, to: "\(folder)/\(names(index))")
        }
        return folder
    }

    func files(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    func leftovers(_ folder: String) -> [String] {
        let manifest = (folder as NSString).appendingPathComponent(ResumeManifest.folderName)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: manifest)) ?? [])
        return names.filter { $0.contains(".partial-") }
    }

    func summary(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    func stylize(_ extra: [String]) throws -> ProcessResult {
        try TestProcess.gpustyle(["--style", "2", "--device", "cpu"] + extra)
    }

    func assertSamePixels(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(files(a), files(b), file: file, line: line)
        for name in files(a) {
            let x = try ImageIO.read(path: "\(a)/\(name)"), y = try ImageIO.read(path: "\(b)/\(name)")
            XCTAssertEqual(x.rgb, y.rgb, name, file: file, line: line)
        }
    }

    func testShardsSplitTheFolderAndARerunSkipsWhatIsFinished() throws {
        let input = try photos(9, names: { $0 == 4 ? "café \($0).jpg.png" : "photo \($0).png" })
        let out = scratch.path("out")
        var assigned = 0
        for index in 0..<3 {
            let result = try stylize(["--shard", "\(index)/3", "--summary", scratch.path("s\(index).json"), input, out])
            XCTAssertEqual(result.status, 0, result.stderr)
            let s = try summary(scratch.path("s\(index).json"))
            XCTAssertEqual(s["shard"] as? String, "\(index)/3")
            XCTAssertEqual(s["done"] as? Int, s["assigned"] as? Int)
            XCTAssertEqual(s["skipped"] as? Int, 0)
            XCTAssertEqual((s["device"] as? String)?.hasPrefix("cpu") ?? (s["assigned"] as? Int == 0), true, "\(s)")
            assigned += s["assigned"] as! Int
        }
        XCTAssertEqual(assigned, 9, "each photo in exactly one shard")
        XCTAssertEqual(files(out).count, 9)
        let reference = scratch.path("reference")
        XCTAssertEqual(try stylize([input, reference]).status, 0)
        try assertSamePixels(out, reference)

        // Again: everything is skipped and nothing is written.
        let before = try files(out).map { try FileManager.default.attributesOfItem(atPath: "\(out)/\($0)")[.modificationDate] as! Date }
        let again = try stylize(["--summary", scratch.path("again.json"), input, out])
        XCTAssertEqual(again.status, 0, again.stderr)
        let s = try summary(scratch.path("again.json"))
        XCTAssertEqual(s["skipped"] as? Int, 9)
        XCTAssertEqual(s["done"] as? Int, 0)
        XCTAssertEqual(try files(out).map { try FileManager.default.attributesOfItem(atPath: "\(out)/\($0)")[.modificationDate] as! Date }, before)

        // A changed photo, an edited output, a removed output and --force are redone; the rest is not.
        try FileManager.default.removeItem(atPath: "\(input)/photo 1.png")
        try FileManager.default.copyItem(atPath: "\(input)/photo 2.png", toPath: "\(input)/photo 1.png")
        try Data("edited".utf8).write(to: URL(fileURLWithPath: "\(out)/photo 3.png"))
        try FileManager.default.removeItem(atPath: "\(out)/photo 5.png")
        let redo = try stylize(["--summary", scratch.path("redo.json"), input, out])
        XCTAssertEqual(redo.status, 0, redo.stderr)
        let r = try summary(scratch.path("redo.json"))
        XCTAssertEqual(r["done"] as? Int, 3, "\(r)")
        XCTAssertEqual(r["skipped"] as? Int, 6, "\(r)")
        XCTAssertEqual(try ImageIO.read(path: "\(out)/photo 1.png").rgb, try ImageIO.read(path: "\(out)/photo 2.png").rgb)
        let forced = try stylize(["--force", "--summary", scratch.path("forced.json"), input, out])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try summary(scratch.path("forced.json"))["done"] as? Int, 9)
        // Other options are other outputs.
        let strength = try stylize(["--strength", "0.5", "--summary", scratch.path("strength.json"), input, out])
        XCTAssertEqual(strength.status, 0, strength.stderr)
        XCTAssertEqual(try summary(scratch.path("strength.json"))["done"] as? Int, 9)
    }

    /// SIGKILL in the middle, then the same command: the rest is done, nothing twice, nothing left.
    func testAKilledRunIsFinishedByTheNext() throws {
        let input = try photos(24)
        let out = scratch.path("out")
        let process = Process()
        process.executableURL = TestProcess.productsDirectory.appendingPathComponent("gpustyle")
        process.arguments = ["--style", "2", "--device", "cpu", input, out]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while files(out).count < 3 && process.isRunning && Date() < deadline { usleep(5_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let finished = files(out).count
        XCTAssertGreaterThanOrEqual(finished, 3)
        XCTAssertLessThan(finished, 24, "killed before the end")
        // A partial output as a kill leaves it (the kill above may or may not have left one).
        try Data("half a PNG".utf8).write(to: URL(fileURLWithPath: "\(out)/.photo 23.png.partial-99999-abc"))

        let rerun = try stylize(["--summary", scratch.path("rerun.json"), input, out])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let s = try summary(scratch.path("rerun.json"))
        let skipped = s["skipped"] as! Int
        // The output renamed into place just before the kill may lack its record: redone, at most one.
        XCTAssertTrue(skipped == finished || skipped == finished - 1, "\(s), \(finished) finished before")
        XCTAssertEqual(skipped + (s["done"] as! Int), 24)
        XCTAssertEqual(leftovers(out), [])
        let reference = scratch.path("reference")
        XCTAssertEqual(try stylize([input, reference]).status, 0)
        try assertSamePixels(out, reference)
    }

    func testFailuresAreListedAndExitOne() throws {
        let input = try photos(3)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: "\(input)/bad.png"))
        let out = scratch.path("out")
        let result = try stylize(["--summary", scratch.path("s.json"), input, out])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(input)/bad.png: not a PNG"), result.stderr)
        let s = try summary(scratch.path("s.json"))
        XCTAssertEqual(s["failed"] as? Int, 1)
        XCTAssertEqual(s["done"] as? Int, 3)
        let failures = s["failures"] as! [[String: String]]
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures[0]["file"], "\(input)/bad.png")
        XCTAssertTrue(failures[0]["error"]!.contains("not a PNG"), "\(failures)")
        // The failed one is tried again next time; the others are skipped.
        let again = try stylize(["--summary", scratch.path("s2.json"), input, out])
        XCTAssertEqual(again.status, 1)
        let s2 = try summary(scratch.path("s2.json"))
        XCTAssertEqual(s2["skipped"] as? Int, 3)
        XCTAssertEqual(s2["failed"] as? Int, 1)
    }

    func testShardMistakesAreUsageErrors() throws {
        let input = try photos(1)
        for (arguments, phrase) in [(["--shard", "2/2"], "index must be 0-1"), (["--shard", "auto"], "SLURM_ARRAY_TASK_ID is not set"),
                                    (["--shard", "x"], "expected I/N")] {
            let result = try stylize(arguments + [input, scratch.path("out")])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(phrase), result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
        // A Slurm array's task: auto reads its variables.
        let env = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "5"]
        let result = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", "--shard", "auto", "--summary", scratch.path("s.json"),
                                               input, scratch.path("out")], environment: env)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try summary(scratch.path("s.json"))["shard"] as? String, "1/2")
        let single = try stylize(["--shard", "0/2", "\(input)/photo 0.png", scratch.path("one.png")])
        XCTAssertEqual(single.status, 2)
        XCTAssertTrue(single.stderr.contains("for a folder"), single.stderr)
    }
}
