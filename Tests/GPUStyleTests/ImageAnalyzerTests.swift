import Foundation
import XCTest
@testable import GPUStyle

/// `ImageAnalyzer`'s lanes run together: the same results as each request alone, on the CPU
/// path and with every lane on its own Vulkan backend of one validating context (the lanes
/// submit from their own threads).
enum ImageAnalyzerFixtures {
    // The requests whose stages `analyzer` makes (text has its own tests: TextCLITests).
    static let requests: [ImageAnalyzer.Request] = [.rectangles, .faces, .classify, .digits]

    static func analyzer(_ backend: () throws -> NetworkBackend) throws -> ImageAnalyzer {
        let detector = RectangleDetector()
        let faces = try backend()
        return ImageAnalyzer(detector: detector, faceDetector: try FaceDetector(backend: faces), landmarker: try FaceLandmarker(backend: faces),
                             classifier: try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: backend()),
                             noteReader: NoteReader(detector: detector, warper: CPUPerspectiveWarper(),
                                                    classifier: try DigitClassifier(backend: backend())))
    }

    /// The lanes' results against each request run alone, one after another, on the CPU path.
    static func checkAgainstAlone(_ analyzer: ImageAnalyzer, file: StaticString = #filePath, line: UInt = #line) throws {
        let photo = try ImageIO.read(path: DigitFixtures.root.appendingPathComponent("notes-example.jpg").path)
        let together = try analyzer.analyze(photo, requests: requests)
        let alone = try Self.analyzer { CPUBackend(weights: []) }
        var expected = ImageAnalyzer.Result()
        for request in requests {
            let one = try alone.analyze(photo, requests: [request])
            expected.rectangles = one.rectangles ?? expected.rectangles
            expected.faces = one.faces ?? expected.faces
            expected.classifications = one.classifications ?? expected.classifications
            expected.notes = one.notes ?? expected.notes
        }
        XCTAssertEqual(Set(together.seconds.keys), Set(requests), file: file, line: line)
        XCTAssertEqual(together.rectangles?.map(\.quad), expected.rectangles?.map(\.quad), file: file, line: line)
        XCTAssertEqual(together.notes?.map(\.content), expected.notes?.map(\.content), file: file, line: line)
        XCTAssertFalse(expected.notes?.isEmpty ?? true, file: file, line: line)
        XCTAssertEqual(together.classifications?.first?.index, expected.classifications?.first?.index, file: file, line: line)
        let a = try XCTUnwrap(together.faces, file: file, line: line), b = try XCTUnwrap(expected.faces, file: file, line: line)
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (x, y) in zip(a, b) { XCTAssertGreaterThan(x.overlap(y), 0.999, file: file, line: line) }
        XCTAssertEqual(together.meshes?.count, a.count, file: file, line: line)
    }
}

final class ImageAnalyzerTests: XCTestCase {
    func testLanesTogetherGiveWhatEachRequestGivesAlone() throws {
        try ImageAnalyzerFixtures.checkAgainstAlone(ImageAnalyzerFixtures.analyzer { CPUBackend(weights: []) })
    }

    func testLanes() {
        XCTAssertEqual(ImageAnalyzer.lanes([.faces, .digits, .classify, .rectangles]), [[.digits, .rectangles], [.faces], [.classify]])
        XCTAssertEqual(ImageAnalyzer.lanes([.classify]), [[.classify]])
    }
}

final class ImageAnalyzerVulkanTests: VulkanTestCase {
    func testLanesOnVulkanTogether() throws {
        try ImageAnalyzerFixtures.checkAgainstAlone(ImageAnalyzerFixtures.analyzer { try VulkanBackend(context: self.context, weights: []) })
    }
}
