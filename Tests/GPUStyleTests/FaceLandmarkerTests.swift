import Foundation
import XCTest
@testable import GPUStyle

/// MediaPipe's face landmark model on the runtime against Google's TFLite interpreter
/// (ai-edge-litert; tools/make_face_landmark_fixtures.py) on 16 face crops from the committed
/// face photos: every one of the 468 points within 0.5 px (crop pixels) and the face logit within
/// 1e-2, on the CPU path and on Vulkan; and the whole path (crop, model, mapping back onto the
/// photo) against the fixture script's numpy twin within 0.5 px.
enum FaceLandmarkFixtures {
    struct Case {
        let photo: String
        let face: Int
        let crop: FaceCrop
        let points: [[Double]]
        let faceLogit: Float
        let photoPoints: [Point]
    }

    static var root: URL { Fixtures.root.appendingPathComponent("face-landmarks") }
    static let pointTolerance = 0.5
    static let logitTolerance: Float = 1e-2

    static func cases() throws -> (columns: Int, cases: [Case]) {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("cases.json"))) as! [String: Any]
        let cases = (json["cases"] as! [[String: Any]]).map { c -> Case in
            let crop = c["crop"] as! [String: Any]
            let centre = crop["centre"] as! [Double]
            return Case(photo: c["photo"] as! String, face: c["face"] as! Int,
                        crop: FaceCrop(centre: Point(x: centre[0], y: centre[1]), side: crop["side"] as! Double,
                                       rotation: crop["rotation"] as! Double),
                        points: c["points"] as! [[Double]], faceLogit: Float(c["face_logit"] as! Double),
                        photoPoints: (c["photo_points"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) })
        }
        return (json["columns"] as! Int, cases)
    }

    static func crop(_ index: Int, columns: Int, from sheet: Image) -> Image {
        let side = FaceLandmarker.side
        let (row, column) = (index / columns, index % columns)
        var rgb = [Float](repeating: 0, count: 3 * side * side)
        for c in 0..<3 {
            for y in 0..<side {
                for x in 0..<side {
                    rgb[c * side * side + y * side + x] = sheet.rgb[c * sheet.pixelCount + (row * side + y) * sheet.width + column * side + x]
                }
            }
        }
        return Image(width: side, height: side, rgb: rgb)
    }

    @discardableResult
    static func checkParity(_ landmarker: FaceLandmarker, file: StaticString = #filePath, line: UInt = #line) throws -> Double {
        let (columns, cases) = try cases()
        XCTAssertGreaterThanOrEqual(cases.count, 15, file: file, line: line)
        let sheet = try ImageIO.read(path: root.appendingPathComponent("crops.jpg").path)
        var worst = 0.0
        for (index, c) in cases.enumerated() {
            let output = try landmarker.run(crop: crop(index, columns: columns, from: sheet))
            XCTAssertEqual(output.points.count, 468)
            XCTAssertEqual(output.faceLogit, c.faceLogit, accuracy: logitTolerance, "\(c.photo) face \(c.face)", file: file, line: line)
            for (p, e) in zip(output.points, c.points) {
                let d = max(abs(Double(p.x) - e[0]), abs(Double(p.y) - e[1]), abs(Double(p.z) - e[2]))
                worst = max(worst, d)
            }
        }
        XCTAssertLessThanOrEqual(worst, pointTolerance, "largest point difference \(worst) px", file: file, line: line)
        return worst
    }
}

final class FaceLandmarkerCPUTests: XCTestCase {
    func testMatchesTFLite() throws {
        let worst = try FaceLandmarkFixtures.checkParity(FaceLandmarker(backend: CPUBackend(weights: [])))
        print("face landmarks parity, cpu: largest point difference \(worst) px (crop pixels)")
    }

    /// Crop, model and mapping back against the numpy twin, from the reference's faces.
    func testMeshOnThePhotoMatchesTheTwin() throws {
        let landmarker = try FaceLandmarker(backend: CPUBackend(weights: []))
        let faces = try FaceFixtures.photos().photos
        var worst = 0.0
        for c in try FaceLandmarkFixtures.cases().cases {
            let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent(c.photo).path)
            let face = try XCTUnwrap(faces.first { $0.file == c.photo }?.faces[c.face])
            XCTAssertEqual(FaceCrop(face: face).side, c.crop.side, accuracy: 1e-9)
            XCTAssertEqual(FaceCrop(face: face).rotation, c.crop.rotation, accuracy: 1e-9)
            let mesh = try landmarker.mesh(of: face, in: photo)
            XCTAssertGreaterThan(mesh.confidence, FaceLandmarker.minimumFaceProbability, c.photo)
            for (p, e) in zip(mesh.points, c.photoPoints) { worst = max(worst, p.distance(to: e)) }
        }
        print("face mesh on the photo vs the numpy twin: largest difference \(worst) px")
        XCTAssertLessThanOrEqual(worst, FaceLandmarkFixtures.pointTolerance)
    }

    /// The regions are where their names say on near-frontal upright faces (the cameraman, in
    /// profile, is left out: there an eyebrow's end passes the oval, as it does on the face):
    /// eyes above the lips, the left eye left of the right one and near the detector's eye,
    /// each eyebrow above its eye, the pupils inside their eyes, the inner lips inside the outer
    /// ones, eyes and lips inside the face's contour.
    /// No two edges of the closed polygon cross (edges sharing a corner aside).
    static func isSimple(_ polygon: [Point]) -> Bool {
        func cross(_ a: Point, _ b: Point) -> Double { a.x * b.y - a.y * b.x }
        func crosses(_ p1: Point, _ p2: Point, _ p3: Point, _ p4: Point) -> Bool {
            cross(p2 - p1, p3 - p1) * cross(p2 - p1, p4 - p1) < 0 && cross(p4 - p3, p1 - p3) * cross(p4 - p3, p2 - p3) < 0
        }
        let n = polygon.count
        for i in 0..<n {
            for j in stride(from: i + 2, to: n, by: 1) where !(i == 0 && j == n - 1) {
                if crosses(polygon[i], polygon[(i + 1) % n], polygon[j], polygon[(j + 1) % n]) { return false }
            }
        }
        return true
    }

    /// Even-odd rule.
    static func contains(_ polygon: [Point], _ p: Point) -> Bool {
        var inside = false
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
        }
        return inside
    }

    /// The detector's box of a face and a second, smaller box on the same face (as a pass far
    /// below a very large face gives): both crops show the face, their meshes land on each
    /// other, the more confident box is kept; a box on no face goes; `keepUnverified` keeps all.
    func testVerifiedKeepsEachFaceOnce() throws {
        let landmarker = try FaceLandmarker(backend: CPUBackend(weights: []))
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let face = try XCTUnwrap(try FaceFixtures.photos().photos.first { $0.file == "00-astronaut.jpg" }?.faces.first)
        var inner = face
        inner.confidence = 0.95
        inner.x += 0.15 * face.width
        inner.y += 0.2 * face.height
        inner.width *= 0.75
        inner.height *= 0.7
        var elsewhere = face
        elsewhere.confidence = 0.9
        elsewhere.x = 400
        elsewhere.y = 400
        let all = [inner, face, elsewhere]
        let meshes = try landmarker.meshes(of: all, in: photo)
        XCTAssertNotNil(meshes[0], "the inner box's crop shows the face")
        XCTAssertGreaterThan(meshes[0]!.overlap(meshes[1]!), FaceMesh.sameFaceOverlap)
        XCTAssertNil(meshes[2], "nothing like a face at the bottom right")
        let verified = try landmarker.verified(all, in: photo)
        XCTAssertEqual(verified.faces, [face])
        XCTAssertEqual(verified.meshes.count, 1)
        XCTAssertEqual(try landmarker.verified(all, in: photo, keepUnverified: true).faces, all)
    }

    func testRegionsAreWhereTheirNamesSay() throws {
        let landmarker = try FaceLandmarker(backend: CPUBackend(weights: []))
        let photos = try FaceFixtures.photos().photos
        var frontalNoses = 0
        defer { XCTAssertGreaterThanOrEqual(frontalNoses, 3, "near-frontal faces whose nose was checked") }
        for file in ["00-astronaut.jpg", "02-messi.jpg", "03-coffee-faces.jpg", "08-immunohistochemistry-faces.jpg"] {
            let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent(file).path)
            let face = try XCTUnwrap(photos.first { $0.file == file }?.faces.first)
            let mesh = try landmarker.mesh(of: face, in: photo)
            func centre(_ r: FaceRegion) -> Point { Point.mean(mesh.points(of: r)) }
            func box(_ r: FaceRegion) -> (x: ClosedRange<Double>, y: ClosedRange<Double>) {
                let p = mesh.points(of: r)
                return (p.map(\.x).min()!...p.map(\.x).max()!, p.map(\.y).min()!...p.map(\.y).max()!)
            }
            XCTAssertLessThan(centre(.leftEye).x, centre(.rightEye).x, file)
            XCTAssertLessThan(centre(.leftEyebrow).y, centre(.leftEye).y, file)
            XCTAssertLessThan(centre(.rightEyebrow).y, centre(.rightEye).y, file)
            XCTAssertLessThan(max(centre(.leftEye).y, centre(.rightEye).y), centre(.outerLips).y, file)
            XCTAssertLessThan(centre(.leftEye).distance(to: face[.leftEye]), 0.15 * face.width, file)
            XCTAssertLessThan(centre(.rightEye).distance(to: face[.rightEye]), 0.15 * face.width, file)
            for (pupil, eye) in [(FaceRegion.leftPupil, FaceRegion.leftEye), (.rightPupil, .rightEye)] {
                let p = try XCTUnwrap(mesh.points(of: pupil).first)
                XCTAssertTrue(box(eye).x.contains(p.x) && box(eye).y.contains(p.y), "\(file) \(pupil)")
            }
            let outer = box(.outerLips), inner = box(.innerLips), contour = box(.faceContour)
            XCTAssertTrue(outer.x.contains(inner.x.lowerBound) && outer.x.contains(inner.x.upperBound), file)
            for region in FaceRegion.allCases where ![.leftEyebrow, .rightEyebrow].contains(region) {
                for p in mesh.points(of: region) {
                    XCTAssertTrue(contour.x.contains(p.x) && contour.y.contains(p.y), "\(file) \(region)")
                }
            }
            // The nose outline on a near-frontal face (its centre near the middle of the eye line):
            // a simple polygon around the tip, below the eyes, above the lips.
            let nose = mesh.points(of: .nose), eyes = (centre(.leftEye), centre(.rightEye))
            let across = (centre(.nose) - eyes.0).x * (eyes.1 - eyes.0).x / pow(eyes.0.distance(to: eyes.1), 2)
                + (centre(.nose) - eyes.0).y * (eyes.1 - eyes.0).y / pow(eyes.0.distance(to: eyes.1), 2)
            if abs(across - 0.5) < 0.15 {
                frontalNoses += 1
                XCTAssertTrue(Self.isSimple(nose), "\(file): the nose outline crosses itself")
                XCTAssertTrue(Self.contains(nose, mesh.points[1]) && Self.contains(nose, mesh.points[19]), "\(file): the tip is inside")
                XCTAssertLessThan(max(eyes.0.y, eyes.1.y), centre(.nose).y, file)
                XCTAssertLessThan(centre(.nose).y, centre(.outerLips).y, file)
            }
            let outlines = FaceRegion.allCases.filter { $0 != .noseCrest && $0 != .medianLine }
            XCTAssertEqual(Set(outlines.flatMap(\.indices)).count, outlines.map(\.indices.count).reduce(0, +),
                           "no point in two outlines")
            XCTAssertTrue(Set(FaceRegion.noseCrest.indices).isSubset(of: FaceRegion.medianLine.indices))
            // The median line and the nose crest lie on the line from forehead to chin, in order,
            // on a frontal face (the astronaut); on turned faces the nose leaves that line.
            if file == "00-astronaut.jpg" {
                let line = mesh.points(of: .medianLine)
                let top = line.first!, chin = line.last!
                let length = top.distance(to: chin)
                let axis = Point(x: (chin.x - top.x) / length, y: (chin.y - top.y) / length)
                let width = mesh.points.map(\.x).max()! - mesh.points.map(\.x).min()!
                var along = -Double.infinity
                for p in line {
                    let d = p - top
                    XCTAssertLessThan(abs(d.x * axis.y - d.y * axis.x), 0.01 * width, "off the median line")
                    let t = d.x * axis.x + d.y * axis.y
                    XCTAssertGreaterThanOrEqual(t, along - 0.5, "in order from forehead to chin")
                    along = t
                }
            }
        }
    }
}

final class FaceLandmarkerVulkanTests: VulkanTestCase {
    func testMatchesTFLite() throws {
        let worst = try FaceLandmarkFixtures.checkParity(FaceLandmarker(backend: VulkanBackend(context: context, weights: [])))
        print("face landmarks parity, vulkan: largest point difference \(worst) px (crop pixels)")
    }
}
