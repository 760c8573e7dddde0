import Foundation
import XCTest
@testable import GPUStyle

/// `LiveFaces` on a synthetic clip made here: the astronaut's face (Fixtures/live-faces/face.png,
/// cut by tools/make_live_faces_fixture.py) rests, moves, turns and grows, rests again over a
/// 320x240 photo with camera noise, then is gone. Truth is the reference models' mesh on the
/// source photo (truth.json: onnxruntime's RetinaFace crop, ai-edge-litert's face mesh) moved
/// with the face, so where every mask belongs is known on every frame.
final class LiveFacesTests: XCTestCase {
    static let width = 320, height = 240
    /// Frames: rest 0..<15, move 15..<39, rest 39..<63, no face 63..<69 (30 fps).
    static let moveStart = 15, moveEnd = 39, faceEnd = 63, frameCount = 69
    /// Camera noise, 8-bit levels (as tools/make_face_video.py's default).
    static let noise = 2.0

    struct Scene {
        let face: Image
        let background: Image
        /// The reference mesh in the cut's pixels.
        let mesh: [Point]
        /// Cut pixels to frame pixels at scale 1.
        let baseScale: Double
    }

    static let scene = Result { () throws -> Scene in
        let root = Fixtures.root.appendingPathComponent("live-faces")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("truth.json"))) as! [String: Any]
        let box = (json["box"] as! [[Double]])
        let face = try ImageIO.read(path: root.appendingPathComponent("face.png").path)
        return Scene(face: face, background: try ImageIO.read(path: root.appendingPathComponent("background.jpg").path),
                     mesh: (json["mesh"] as! [[Double]]).map { Point(x: $0[0], y: $0[1]) },
                     baseScale: 0.4 * Double(height) / (box[2][1] - box[0][1]))  // the face's box 40 % of the frame high
    }

    /// Frame `k`'s move of the cut: its centre's offset from the frame's, angle (radians), scale.
    static func pose(_ k: Int) -> (dx: Double, dy: Double, angle: Double, scale: Double) {
        let u: Double = k < moveStart ? 0 : k >= moveEnd ? 1 : {
            let t = Double(k - moveStart) / Double(moveEnd - moveStart)
            return t * t * (3 - 2 * t)
        }()
        return (50 * u, 15 * u, 12 * Double.pi / 180 * u, 1 + 0.15 * u)
    }

    /// Cut point -> frame point in frame `k`.
    static func toFrame(_ p: Point, _ k: Int, scene: Scene) -> Point {
        let (dx, dy, angle, scale) = pose(k)
        let s = scene.baseScale * scale, c = cos(angle), n = sin(angle)
        let u = p.x - Double(scene.face.width) / 2, v = p.y - Double(scene.face.height) / 2
        return Point(x: Double(width) / 2 + dx + s * (u * c - v * n), y: Double(height) / 2 + dy + s * (u * n + v * c))
    }

    /// Frame `k`: the face composited over the background (bilinear, its alpha), noise added.
    static func frame(_ k: Int, scene: Scene) -> YUVFrame {
        var rgb = scene.background.rgb
        let n = width * height, cut = scene.face, plane = cut.pixelCount
        if k < faceEnd {
            let (dx, dy, angle, scale) = pose(k)
            let s = scene.baseScale * scale, c = cos(angle), sn = sin(angle)
            for y in 0..<height {
                for x in 0..<width {
                    // Frame pixel centre -> cut coordinates (the inverse of `toFrame`), then its pixel grid.
                    let fx = Double(x) + 0.5 - Double(width) / 2 - dx, fy = Double(y) + 0.5 - Double(height) / 2 - dy
                    let u = (fx * c + fy * sn) / s + Double(cut.width) / 2 - 0.5
                    let v = (-fx * sn + fy * c) / s + Double(cut.height) / 2 - 0.5
                    guard u >= 0, v >= 0, u < Double(cut.width - 1), v < Double(cut.height - 1) else { continue }
                    let u0 = Int(u), v0 = Int(v), au = Float(u - Double(u0)), av = Float(v - Double(v0))
                    func sample(_ values: [Float], _ offset: Int) -> Float {
                        let i = offset + v0 * cut.width + u0
                        let top = values[i] * (1 - au) + values[i + 1] * au
                        let bottom = values[i + cut.width] * (1 - au) + values[i + cut.width + 1] * au
                        return top * (1 - av) + bottom * av
                    }
                    let alpha = sample(cut.alpha!, 0)
                    for ch in 0..<3 {
                        let i = ch * n + y * width + x
                        rgb[i] = alpha * sample(cut.rgb, ch * plane) + (1 - alpha) * rgb[i]
                    }
                }
            }
        }
        var random = SplitMix(seed: UInt64(1000 + k))
        for i in rgb.indices { rgb[i] = min(1, max(0, rgb[i] + Float(noise / 255 * random.gaussian()))) }
        return YUVConversion.frame(from: Image(width: width, height: height, rgb: rgb), chroma: .yuv420(centred: true))
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        mutating func gaussian() -> Double {
            let a = max(next(), 1e-12), b = next()
            return (-2 * log(a)).squareRoot() * cos(2 * Double.pi * b)
        }
    }

    /// The regions a mask goes on in docs/live.md's example, and the pupils.
    static let masked: [FaceRegion] = [.faceContour, .leftEye, .rightEye, .leftEyebrow, .rightEyebrow, .outerLips, .innerLips,
                                       .leftPupil, .rightPupil]

    static let frames = Result { () throws -> [YUVFrame] in
        let loaded = try LiveFacesTests.scene.get()
        return (0..<frameCount).map { frame($0, scene: loaded) }
    }

    /// `frames` through a `LiveFaces` in lockstep, its networks on `backend()` (the CPU path).
    static func run(_ options: LiveFacesOptions, detect: (@Sendable (Image) throws -> [Face])? = nil, frames: [YUVFrame],
                    backend: () throws -> NetworkBackend = { CPUBackend(weights: []) }) throws -> [(frame: YUVFrame, report: LiveFacesReport)] {
        var options = options
        options.lockstep = true
        let landmarker = try FaceLandmarker(backend: backend())
        let live: LiveFaces
        if let detect {
            live = LiveFaces(options: options, landmarker: landmarker, detect: detect)
        } else {
            live = LiveFaces(options: options, landmarker: landmarker, detector: try FaceDetector(backend: backend()))
        }
        defer { live.finish() }
        return try frames.enumerated().map { k, frame in try live.process(frame, index: k, time: Double(k) / 30, fullRange: false) }
    }

    /// Mean frame-to-frame movement of the masks' centres over frames `range` (a rest).
    static func jitter(_ reports: [LiveFacesReport], _ range: Range<Int>) -> Double {
        var moves: [Double] = []
        for k in range.dropFirst() {
            guard let a = reports[k - 1].faces.first, let b = reports[k].faces.first else { continue }
            for region in masked { moves.append(a.placements[region]!.centre.distance(to: b.placements[region]!.centre)) }
        }
        return moves.reduce(0, +) / Double(max(1, moves.count))
    }

    /// The bars on the clip: masks within 3 px of the truth's placement on average, still
    /// (under 0.5 px a frame) while the face rests, one face under one id, dropped on the first
    /// frame it is gone; and the filter is what keeps them still (raw points jitter more).
    func testMasksFollowTheFaceStillAtRestAndGoWithIt() throws {
        let scene = try Self.scene.get(), frames = try Self.frames.get()
        let reports = try Self.run(LiveFacesOptions(), frames: frames).map(\.report)
        var errors: [Double] = []
        for k in 0..<Self.faceEnd {
            XCTAssertEqual(reports[k].faces.count, 1, "frame \(k)")
            guard let face = reports[k].faces.first else { continue }
            XCTAssertEqual(face.id, 0, "frame \(k)")
            let truth = FaceMesh(points: scene.mesh.map { Self.toFrame($0, k, scene: scene) }, depths: [], confidence: 1)
            for region in Self.masked {
                errors.append(face.placements[region]!.centre.distance(to: FaceMasking.placement(of: region, in: truth)!.centre))
            }
        }
        let meanError = errors.reduce(0, +) / Double(errors.count)
        XCTAssertLessThanOrEqual(meanError, 3, "mean mask position error")
        XCTAssertEqual(reports[Self.faceEnd].lost, 1)
        for k in Self.faceEnd..<Self.frameCount { XCTAssertTrue(reports[k].faces.isEmpty, "frame \(k): the face is gone") }
        // At rest from 10 frames into the second rest (the filter has caught up by then).
        let settled = (Self.moveEnd + 10)..<Self.faceEnd
        let jitter = Self.jitter(reports, settled)
        XCTAssertLessThanOrEqual(jitter, 0.5, "jitter at rest")
        var raw = LiveFacesOptions()
        raw.smoothing = nil
        let rawJitter = Self.jitter(try Self.run(raw, frames: Array(frames[..<Self.faceEnd])).map(\.report), settled)
        XCTAssertGreaterThan(rawJitter, 2 * jitter, "the filter keeps the masks still")
        print(String(format: "live faces: mean mask error %.2f px, jitter at rest %.3f px (raw points %.3f)", meanError, jitter, rawJitter))
    }

    /// A face no detection has seen for `confirmationTimeout` is dropped, even while the mesh
    /// still sees it: the detector's first answer is its only one.
    func testUnconfirmedFaceIsDropped() throws {
        let frames = Array(try Self.frames.get()[..<Self.moveStart]) + Array(repeating: try Self.frames.get()[0], count: 30)
        let detector = DetectorBox(try FaceDetector(backend: CPUBackend(weights: [])))
        let calls = Counter()
        let options = LiveFacesOptions()
        let detection = options.detection
        let reports = try Self.run(options, detect: { image in
            calls.increment() == 0 ? try detector.detector.detect(image, options: detection) : []
        }, frames: frames).map(\.report)
        for (k, report) in reports.enumerated() {
            // Confirmed at frame 0 (t = 0): drawn while t <= 1 s.
            XCTAssertEqual(report.faces.count, k <= 30 ? 1 : 0, "frame \(k)")
        }
        XCTAssertEqual(reports[31].lost, 1)
    }

    /// Masks are drawn where the report places them; the rest of the frame is left alone (within
    /// the colour round trip's rounding).
    func testMaskIsDrawnOverItsRegion() throws {
        var options = LiveFacesOptions()
        let red = Image(width: 8, height: 8, rgb: [Float](repeating: 1, count: 64) + [Float](repeating: 0, count: 128))
        options.masks = [.leftEye: red]
        let frames = Array(try Self.frames.get()[..<3])
        let out = try Self.run(options, frames: frames)
        let (frame, report) = out[2]
        let placement: FaceMasking.Placement = try XCTUnwrap(report.faces.first?.placements[FaceRegion.leftEye])
        let image = YUVConversion.image(from: frame)
        let i = Int(placement.centre.y) * Self.width + Int(placement.centre.x)
        XCTAssertGreaterThan(image.rgb[i], 0.85)
        XCTAssertLessThan(image.rgb[image.pixelCount + i], 0.2)
        // A corner far from the face: as it came in.
        let before = frames[2].y, after = frame.y
        for (x, y) in [(2, 2), (Self.width - 3, 2), (2, Self.height - 3)] {
            XCTAssertLessThanOrEqual(abs(Int(before[y * Self.width + x]) - Int(after[y * Self.width + x])), 2)
        }
    }

    /// The tracking crop from a mesh: centred on the points, 1.5 times their extent, turned with
    /// the eyes' outer corners.
    func testCropFromMeshFollowsTheMesh() throws {
        let scene = try Self.scene.get()
        let k = Self.moveEnd
        let mesh = FaceMesh(points: scene.mesh.map { Self.toFrame($0, k, scene: scene) }, depths: [], confidence: 1)
        let crop = FaceCrop(mesh: mesh)
        let xs = mesh.points.map(\.x), ys = mesh.points.map(\.y)
        XCTAssertEqual(crop.centre.x, (xs.min()! + xs.max()!) / 2, accuracy: 1e-9)
        XCTAssertEqual(crop.side, 1.5 * max(xs.max()! - xs.min()!, ys.max()! - ys.min()!), accuracy: 1e-9)
        // The face was turned 12 degrees; its eye line on the source photo is nearly level.
        XCTAssertEqual(crop.rotation * 180 / .pi, 12, accuracy: 3)
    }
}

/// A counter shared with a detection closure (which runs on the stage's thread).
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// The value before this call.
    func increment() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

/// The same on Vulkan: the detector and the mesh on the device, the same placements as the CPU
/// path's on the clip's first frames (rest and the start of the move).
final class LiveFacesVulkanTests: VulkanTestCase {
    func testVulkanFollowsAsTheCPUPathDoes() throws {
        let frames = Array(try LiveFacesTests.frames.get()[..<20])
        let cpu = try LiveFacesTests.run(LiveFacesOptions(), frames: frames).map(\.report)
        let gpu = try LiveFacesTests.run(LiveFacesOptions(), frames: frames) { try VulkanBackend(context: self.context, weights: []) }.map(\.report)
        var worst = 0.0
        for (a, b) in zip(cpu, gpu) {
            XCTAssertEqual(a.faces.count, 1)
            XCTAssertEqual(b.faces.count, 1)
            guard let fa = a.faces.first, let fb = b.faces.first else { continue }
            for region in LiveFacesTests.masked {
                worst = max(worst, fa.placements[region]!.centre.distance(to: fb.placements[region]!.centre))
            }
        }
        XCTAssertLessThan(worst, 0.05, "largest placement difference, px")
    }
}

/// The detector, used from the stage's thread only.
private final class DetectorBox: @unchecked Sendable {
    let detector: FaceDetector
    init(_ detector: FaceDetector) { self.detector = detector }
}

/// `gpustyle live --faces` / `--mask` end to end on a tiny clip, and their refusals.
final class LiveFacesCLITests: XCTestCase {
    override func setUpWithError() throws {
        try LiveTestSupport.requireFfmpeg()
    }

    /// Eight frames of the astronaut photo, the window sliding a pixel a frame (ffmpeg's crop).
    func clip() throws -> Data {
        let photo = FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path
        let clip = try TestProcess.run(LiveTestSupport.ffmpeg, ["-hide_banner", "-loglevel", "error", "-loop", "1", "-framerate", "30",
                                                                "-i", photo, "-vf", "scale=400:-2,crop=320:240:60+n:10", "-frames:v", "8",
                                                                "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        guard clip.status == 0 else { throw XCTSkip("ffmpeg could not make the clip: \(clip.stderr)") }
        return clip.stdout
    }

    /// Every frame comes out; the log lists the one face on every frame, with every region's
    /// placement; the outlines change the frames.
    func testFacesFollowsTheFaceOfAClip() throws {
        let folder = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try clip()
        let log = folder.appendingPathComponent("faces.jsonl").path
        let result = try TestProcess.gpustyle(["live", "--faces", "--pace", "lockstep", "--device", "cpu", "--quad-log", log, "--stats"],
                                              stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        let (_, outFrames) = try LiveTestSupport.parse(result.stdout)
        let (_, inFrames) = try LiveTestSupport.parse(input)
        XCTAssertEqual(outFrames.count, 8)
        XCTAssertTrue(result.stderr.contains("detections"), result.stderr)
        XCTAssertNotEqual(outFrames[0].y, inFrames[0].y)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 8)
        for line in lines {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let faces = try XCTUnwrap(object["faces"] as? [[String: Any]])
            XCTAssertEqual(faces.count, 1, String(line))
            let regions = try XCTUnwrap(faces.first?["regions"] as? [String: Any])
            XCTAssertEqual(Set(regions.keys), Set(FaceRegion.allCases.map(\.rawValue)))
        }
    }

    /// A mask image that cannot be read: one line naming it, status 2, no output left behind.
    func testBadMaskIsReportedBeforeAnythingIsWritten() throws {
        let folder = try LiveTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("eye.png")
        try Data("not a picture".utf8).write(to: bad)
        let output = folder.appendingPathComponent("out.y4m").path
        // No input at all: the mask is read before the source is opened.
        let result = try TestProcess.gpustyle(["live", "--mask", "leftEye=\(bad.path)", "--device", "cpu", "-o", output])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(bad.path), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testFacesIsItsOwnMode() throws {
        for (arguments, message) in [(["--faces", "--digits"], "--digits"), (["--faces", "--classify"], "--classify"),
                                     (["--mask", "leftEye=x.png", "--full-frame"], "--full-frame"), (["--faces", "--cycle", "2s"], "--cycle"),
                                     (["--mask", "hair=x.png"], "REGION=IMAGE"), (["--faces", "--smoothing", "0,1"], "--smoothing"),
                                     (["--smoothing", "1,1"], "--smoothing"), (["--faces", "--font", "x.ttf"], "--font")] {
            let result = try TestProcess.gpustyle(["live"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
