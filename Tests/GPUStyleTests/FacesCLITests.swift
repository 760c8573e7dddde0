import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle faces` through the binary on the committed face photos (tools/make_face_fixtures.py).
final class FacesCLITests: XCTestCase {
    var folder: URL { FaceFixtures.root }

    /// A face is reported only when the landmark model also sees one: with the threshold
    /// lowered to 0.05, the detector also boxes a patch of the astronaut's photo that the mesh
    /// rejects; --all-detections reports it, with no regions.
    func testFacesAreConfirmedByTheMesh() throws {
        let photo = folder.appendingPathComponent("00-astronaut.jpg").path
        func faces(_ extra: [String]) throws -> [[String: Any]] {
            let run = try TestProcess.gpustyle(["faces", "--json", "--device", "cpu", "--minimum-confidence", "0.05"] + extra + [photo])
            XCTAssertEqual(run.status, 0, run.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            return try XCTUnwrap(object["faces"] as? [[String: Any]])
        }
        let confirmed = try faces([]), all = try faces(["--all-detections"])
        XCTAssertEqual(confirmed.count, 1)
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual(all.filter { $0["regions"] is NSNull }.count, 1)
        XCTAssertEqual(confirmed.first?["box"] as? [Double], all.first { !($0["regions"] is NSNull) }?["box"] as? [Double])
    }

    func testTextAndJSON() throws {
        let photo = folder.appendingPathComponent("00-astronaut.jpg").path
        let text = try TestProcess.gpustyle(["faces", "--device", "cpu", "--landmarks", photo])
        XCTAssertEqual(text.status, 0, text.stderr)
        let line = String(decoding: text.stdout, as: UTF8.self)
        XCTAssertTrue(line.hasPrefix("#1 face 1.00: x 177.9 y 56.8 width 95.2 height 120.3; leftEye (204.7, 100.8)"), line)
        XCTAssertEqual(line.split(separator: "\n").count, 1)

        for device in ["cpu", "auto"] {
            let run = try TestProcess.gpustyle(["faces", "--json", "--device", device, photo])
            XCTAssertEqual(run.status, 0, run.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            XCTAssertEqual(object["width"] as? Int, 512)
            let faces = try XCTUnwrap(object["faces"] as? [[String: Any]])
            XCTAssertEqual(faces.count, 1)
            let box = try XCTUnwrap(faces[0]["box"] as? [Double])
            let reference = try FaceFixtures.photos().photos[0].faces[0]
            XCTAssertEqual(box[0], reference.x, accuracy: 0.5)
            XCTAssertEqual(box[3], reference.height, accuracy: 0.5)
            let points = try XCTUnwrap(faces[0]["points5"] as? [String: [Double]])
            XCTAssertEqual(Set(points.keys), ["leftEye", "rightEye", "nose", "mouthLeft", "mouthRight"])
            XCTAssertLessThan(points["leftEye"]![0], points["rightEye"]![0], "left as seen in the image")
            // Vision's convention: fractions, origin at the bottom-left.
            let normalized = try XCTUnwrap(faces[0]["normalized"] as? [String: Any])
            let nbox = try XCTUnwrap(normalized["box"] as? [Double])
            XCTAssertEqual(nbox[0], box[0] / 512, accuracy: 1e-9)
            XCTAssertEqual(nbox[1], 1 - (box[1] + box[3]) / 512, accuracy: 1e-9)
            let nose = try XCTUnwrap((normalized["points5"] as? [String: [Double]])?["nose"])
            XCTAssertEqual(nose[1], 1 - points["nose"]![1] / 512, accuracy: 1e-9)
            // Vision's regions from the face mesh, in pixels and normalized.
            let regions = try XCTUnwrap(faces[0]["regions"] as? [String: [[Double]]])
            XCTAssertEqual(Set(regions.keys), Set(FaceRegion.allCases.map(\.rawValue)))
            XCTAssertEqual(regions["leftEye"]?.count, 16)
            XCTAssertEqual(regions["leftPupil"]?.count, 1)
            let pupil = try XCTUnwrap(regions["leftPupil"]?.first)
            XCTAssertLessThan(hypot(pupil[0] - points["leftEye"]![0], pupil[1] - points["leftEye"]![1]), 8)
            let nregions = try XCTUnwrap(normalized["regions"] as? [String: [[Double]]])
            XCTAssertEqual(nregions["outerLips"]?.first?[0] ?? 0, (regions["outerLips"]?.first?[0] ?? 1) / 512, accuracy: 1e-9)
        }
    }

    func testOverlayDrawsTheBoxes() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("faces-\(UUID().uuidString).png")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let photo = folder.appendingPathComponent("03-coffee-faces.jpg").path
        let run = try TestProcess.gpustyle(["faces", "--device", "cpu", "--overlay", out.path, photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let original = try ImageIO.read(path: photo), drawn = try ImageIO.read(path: out.path)
        XCTAssertEqual([drawn.width, drawn.height], [original.width, original.height])
        let changed = zip(original.rgb, drawn.rgb).filter { abs($0 - $1) > 0.2 }.count
        XCTAssertGreaterThan(changed, 500, "boxes and points drawn")
        XCTAssertLessThan(changed, original.rgb.count / 10, "only boxes, points and labels")
    }

    /// The bundled masks (examples/masks, tools/make_face_masks.py), from the source tree.
    static var masks: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/masks")
    }

    /// --mask places the bundled images: the masked photo differs from the photo only around
    /// the faces, and is written whole.
    func testMasksAreWritten() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("masked-\(UUID().uuidString).png")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let photo = folder.appendingPathComponent("11-moon-faces.jpg").path
        let masks = FacesCLITests.masks
        let run = try TestProcess.gpustyle(["faces", "--device", "cpu", "--json", "--output", out.path,
                                            "--mask", "leftEye=\(masks.appendingPathComponent("eye.png").path)",
                                            "--mask=outerLips=\(masks.appendingPathComponent("lips.png").path)", photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let faces = try XCTUnwrap((try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["faces"] as? [[String: Any]])
        let original = try ImageIO.read(path: photo), masked = try ImageIO.read(path: out.path)
        XCTAssertEqual([masked.width, masked.height], [original.width, original.height])
        var changed = 0, outside = 0
        for p in 0..<original.pixelCount where (0..<3).contains(where: { abs(original.rgb[$0 * original.pixelCount + p] - masked.rgb[$0 * original.pixelCount + p]) > 0.01 }) {
            changed += 1
            let x = Double(p % original.width), y = Double(p / original.width)
            let inside = faces.contains { f in
                let b = f["box"] as! [Double]
                return x >= b[0] - 0.2 * b[2] && x <= b[0] + 1.2 * b[2] && y >= b[1] - 0.2 * b[3] && y <= b[1] + 1.2 * b[3]
            }
            if !inside { outside += 1 }
        }
        XCTAssertGreaterThan(changed, 500)
        XCTAssertEqual(outside, 0, "masks only on faces")
    }

    func testNoFaceIsExitOne() throws {
        // Sticky notes on a desk (16-brick-faces.jpg is no good here: the enlarged pass finds the
        // 20-px face pasted there, which the package's single pass misses).
        let photo = Fixtures.root.appendingPathComponent("digits/notes-blank.jpg").path
        let run = try TestProcess.gpustyle(["faces", "--device", "cpu", photo])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(String(decoding: run.stdout, as: UTF8.self), "no face found\n")
        let json = try TestProcess.gpustyle(["faces", "--json", "--device", "cpu", photo])
        XCTAssertEqual(json.status, 1)
        XCTAssertTrue(json.stderr.contains("no face found"), json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual((object["faces"] as? [Any])?.count, 0)
    }

    func testBadInputsAreOneLineAndStatusTwo() throws {
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("faces-\(UUID().uuidString).jpg")
        try Data("not a picture".utf8).write(to: garbage)
        addTeardownBlock { try? FileManager.default.removeItem(at: garbage) }
        let photo = folder.appendingPathComponent("00-astronaut.jpg").path
        let eye = FacesCLITests.masks.appendingPathComponent("eye.png").path
        let cases: [([String], String)] = [
            ([garbage.path], garbage.lastPathComponent),
            (["/nonexistent/face.jpg"], "/nonexistent/face.jpg"),
            (["--minimum-confidence", "2", photo], "--minimum-confidence"),
            (["--overlap-threshold", "-1", photo], "--overlap-threshold"),
            (["--overlay", "-", photo], "--overlay"),
            (["--overlay", "/tmp/x.png", photo, photo], "--overlay"),
            (["--mask", "leftEye=\(eye)", photo], "--mask"),
            (["--mask", "hair=\(eye)", "--output", "/tmp/x.png", photo], "--mask"),
            (["--mask", "leftEye", "--output", "/tmp/x.png", photo], "--mask"),
            (["--mask", "leftEye=/nonexistent/eye.png", "--output", "/tmp/x.png", photo], "/nonexistent/eye.png"),
            (["--output", "/tmp/x.png", photo], "--output"),
        ]
        for (arguments, named) in cases {
            let run = try TestProcess.gpustyle(["faces", "--device", "cpu"] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(named), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty, "\(arguments)")
        }
    }
}
