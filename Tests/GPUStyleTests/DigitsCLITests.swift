import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle digits` through the binary on the committed note scenes
/// (tools/make_note_scenes.py --example): the four digits at their notes, blank notes as
/// blank, no note in a note-free photo, and bad inputs.
final class DigitsCLITests: XCTestCase {
    var folder: URL { Fixtures.root.appendingPathComponent("digits") }

    struct TruthNote {
        let corners: [Point]
        let digit: Int?
        let blank: Bool
    }

    func truth(_ name: String) throws -> [TruthNote] {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
        let scene = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        return (scene["notes"] as! [[String: Any]]).map { n in
            TruthNote(corners: (n["corners"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) },
                      digit: n["digit"] as? Int, blank: n["content"] as? String == "blank")
        }
    }

    func notes(_ stdout: Data) throws -> [[String: Any]] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
        return try XCTUnwrap(object["notes"] as? [[String: Any]])
    }

    func corners(_ note: [String: Any]) -> [Point] {
        (note["corners"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) }
    }

    /// The note read at the truth note's place (mean corner distance within 10 % of its side).
    func match(_ truth: TruthNote, in notes: [[String: Any]]) -> [String: Any]? {
        let side = truth.corners[0].distance(to: truth.corners[1])
        return notes.first { note in
            zip(corners(note), truth.corners).map { $0.distance(to: $1) }.reduce(0, +) / 4 <= 0.1 * side
        }
    }

    func testReadsEachNoteOfTheExample() throws {
        let expected = try truth("notes-example")
        XCTAssertEqual(expected.compactMap(\.digit), [6, 9, 8, 4])
        for device in ["cpu", "auto"] {
            let run = try TestProcess.gpustyle(["digits", "--json", "--device", device, folder.appendingPathComponent("notes-example.jpg").path])
            XCTAssertEqual(run.status, 0, run.stderr)
            let found = try notes(run.stdout)
            for note in expected {
                let read = try XCTUnwrap(match(note, in: found), "note \(note.digit!) not found")
                XCTAssertEqual(read["digit"] as? Int, note.digit)
                XCTAssertEqual(read["blank"] as? Bool, false)
                XCTAssertGreaterThan(read["confidence"] as! Double, 0.9)
                let top3 = try XCTUnwrap(read["top3"] as? [[String: Any]])
                XCTAssertEqual(top3.count, 3)
                XCTAssertEqual(top3.first?["digit"] as? Int, note.digit)
                // Sub-pixel corners, as detect's: within 2 px of the truth.
                for (a, b) in zip(corners(read), note.corners) { XCTAssertLessThan(a.distance(to: b), 2, "\(note.digit!)") }
            }
            XCTAssertTrue(found.allSatisfy { match($0, expected) }, "no note where there is none: \(found.count) notes")
        }
    }

    /// --model: both built-in models read the example's four digits; a model file is read as the
    /// built-in model it was written from (the same JSON, byte for byte).
    func testModelChoice() throws {
        let photo = folder.appendingPathComponent("notes-example.jpg").path
        var outputs: [String: Data] = [:]
        for model in DigitClassifier.BuiltIn.allCases.map(\.rawValue) {
            let run = try TestProcess.gpustyle(["digits", "--json", "--device", "cpu", "--model", model, photo])
            XCTAssertEqual(run.status, 0, run.stderr)
            let digits = try notes(run.stdout).compactMap { $0["digit"] as? Int }
            XCTAssertEqual(digits.sorted(), [4, 6, 8, 9], model)
            outputs[model] = run.stdout
        }
        XCTAssertNotEqual(outputs["notes"], outputs["mnist"], "two models, two sets of confidences")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("digits-\(UUID().uuidString).gpsm")
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        try ModelLibrary.builtin(DigitClassifier.BuiltIn.mnist.modelName).serialized().write(to: file)
        let run = try TestProcess.gpustyle(["digits", "--json", "--device", "cpu", "--model", file.path, photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, outputs["mnist"])
    }

    private func match(_ note: [String: Any], _ truth: [TruthNote]) -> Bool {
        truth.contains { match($0, in: [note]) != nil }
    }

    func testTextOutputAndOverlay() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("digits-\(UUID().uuidString).png")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let run = try TestProcess.gpustyle(["digits", "--device", "cpu", "--overlay", out.path, folder.appendingPathComponent("notes-example.jpg").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(Set(lines.map { $0.split(separator: " ")[1] }), ["6", "9", "8", "4"])
        let original = try ImageIO.read(path: folder.appendingPathComponent("notes-example.jpg").path)
        let overlay = try ImageIO.read(path: out.path)
        XCTAssertEqual([overlay.width, overlay.height], [original.width, original.height])
        XCTAssertNotEqual(overlay.rgb, original.rgb, "the notes are outlined and labelled")
    }

    func testGivenQuadsAreReadAsGiven() throws {
        let note = try XCTUnwrap(try truth("notes-example").first { $0.digit == 8 })
        let quad = note.corners.map { String(format: "%.2f,%.2f", $0.x, $0.y) }.joined(separator: ",")
        let run = try TestProcess.gpustyle(["digits", "--json", "--device", "cpu", "--quad=\(quad)",
                                            folder.appendingPathComponent("notes-example.jpg").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let found = try notes(run.stdout)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?["digit"] as? Int, 8)
    }

    /// `--glyphs DIR`: what the classifier saw, one 28x28 PNG per note read, ink centred by
    /// mass as MNIST's; a folder that is not there is a usage error.
    func testGlyphsAreWrittenPerNote() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("digits-glyphs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let photo = folder.appendingPathComponent("notes-example.jpg").path
        let run = try TestProcess.gpustyle(["digits", "--device", "cpu", "--glyphs", out.path, photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(names, ["note-1.png", "note-2.png", "note-3.png", "note-4.png"])
        for name in names {
            let glyph = try ImageIO.read(path: out.appendingPathComponent(name).path)
            XCTAssertEqual([glyph.width, glyph.height], [28, 28])
            var mass: Float = 0, mx: Float = 0, my: Float = 0
            for i in 0..<784 { mass += glyph.rgb[i]; mx += glyph.rgb[i] * Float(i % 28); my += glyph.rgb[i] * Float(i / 28) }
            XCTAssertGreaterThan(mass, 20, name)
            XCTAssertEqual(mx / mass, 14, accuracy: 1, name)
            XCTAssertEqual(my / mass, 14, accuracy: 1, name)
        }
        let missing = try TestProcess.gpustyle(["digits", "--device", "cpu", "--glyphs", out.appendingPathComponent("none").path, photo])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("--glyphs"), missing.stderr)
    }

    func testBlankNotesAreBlank() throws {
        let expected = try truth("notes-blank")
        XCTAssertTrue(expected.allSatisfy(\.blank))
        let run = try TestProcess.gpustyle(["digits", "--json", "--device", "cpu", folder.appendingPathComponent("notes-blank.jpg").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let found = try notes(run.stdout)
        for note in expected {
            let read = try XCTUnwrap(match(note, in: found), "blank note not found")
            XCTAssertEqual(read["blank"] as? Bool, true)
            XCTAssertTrue(read["digit"] is NSNull)
        }
        XCTAssertTrue(found.allSatisfy { $0["digit"] is NSNull }, "no digit on a photo of blank notes")
    }

    func testNoNoteIsExitOne() throws {
        // A photo of a building (a picture, no sticky note) from the detector's fixtures.
        let photo = Fixtures.root.appendingPathComponent("rectangles-nested/nested.jpg").path
        let run = try TestProcess.gpustyle(["digits", "--device", "cpu", photo])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(String(decoding: run.stdout, as: UTF8.self), "no note found\n")
    }

    func testBadInputsAreOneLineAndStatusTwo() throws {
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("digits-\(UUID().uuidString).jpg")
        try Data("not a picture".utf8).write(to: garbage)
        addTeardownBlock { try? FileManager.default.removeItem(at: garbage) }
        let example = folder.appendingPathComponent("notes-example.jpg").path
        let cases: [([String], String)] = [
            ([garbage.path], garbage.lastPathComponent),
            (["/nonexistent/notes.jpg"], "/nonexistent/notes.jpg"),
            (["--minimum-confidence", "1.5", example], "--minimum-confidence"),
            (["--quad", "1,2,3", example], "--quad"),
            (["--preprocess", "fancy", example], "--preprocess"),
            (["--overlay", "-", example], "--overlay"),
            (["--quad=0,0,10,0,10,10,0,10", example, example], "--quad"),
            (["--model", "/nonexistent/digits.gpsm", example], "/nonexistent/digits.gpsm"),
            (["--model", garbage.path, example], garbage.lastPathComponent),
        ]
        for (arguments, named) in cases {
            let run = try TestProcess.gpustyle(["digits", "--device", "cpu"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            let errors = run.stderr.split(separator: "\n")
            XCTAssertEqual(errors.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(named), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty, "\(arguments)")
        }
    }
}
