import Foundation
import XCTest
@testable import GPUStyle

/// SIGTERM while an output is being written: the temporary file is removed and the exit status
/// is 143, as for a process the signal killed.
final class SignalCleanupCLITests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory() }
    override func tearDown() { scratch.remove() }

    func testTerminateDuringWriteLeavesNoTemporaryFile() throws {
        let input = OutputPathCLITests.bigPhoto(in: scratch, width: 1536, height: 1024)
        let outputs = scratch.path("out")
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: false)
        let process = Process()
        process.executableURL = TestProcess.productsDirectory.appendingPathComponent("gpustyle")
        process.arguments = ["--style", "2", "--device", "cpu", input, "\(outputs)/o.png"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the temporary file, then freeze the process so that it is still there when
        // the signal arrives.
        var seen: String?
        while process.isRunning && seen == nil {
            seen = (try? FileManager.default.contentsOfDirectory(atPath: outputs))?.first { $0.hasPrefix(".") }
            if seen == nil { usleep(500) }
        }
        kill(process.processIdentifier, SIGSTOP)
        let stillThere = seen.map { FileManager.default.fileExists(atPath: "\(outputs)/\($0)") } ?? false
        kill(process.processIdentifier, SIGTERM)
        kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
        XCTAssertNotNil(seen, "the temporary file never appeared")
        XCTAssertTrue(stillThere, "the write ended before the signal; the test proves nothing")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 143)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs), [], "nothing may be left")
    }

    func testInterruptBeforeWritingExits130() throws {
        let process = Process()
        process.executableURL = TestProcess.productsDirectory.appendingPathComponent("gpustyle")
        process.arguments = ["--style", "2", "--device", "cpu", OutputPathCLITests.bigPhoto(in: scratch, width: 1536, height: 1024),
                             scratch.path("o.png")]
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 0.3)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path("o.png")))
    }
}
