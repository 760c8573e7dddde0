import Foundation

/// How `LiveFaces` follows the faces in a video.
public struct LiveFacesOptions: Sendable {
    /// Shortest time between two detections while faces are followed (video seconds): the
    /// detector finds faces that came into view and confirms the followed ones; the mesh
    /// follows them in between.
    public var detectionInterval = 0.3
    /// The same while no face is followed: a face coming into view is found within a few
    /// frames (the detector then runs back to back if it is slower).
    public var searchInterval = 0.1
    /// The detector's settings: no enlarged pass (`enlargement` 1). A face under 20 px in a
    /// live frame is too small for a mesh worth drawing, and the enlarged pass would make each
    /// detection of a 640 x 480 frame several times slower.
    public var detection: FaceDetector.Options = {
        var options = FaceDetector.Options()
        options.enlargement = 1
        return options
    }()
    /// A followed face that no detection has seen for this long (video seconds) is dropped:
    /// the mesh alone could hold on to something that only looks like a face to it. With a
    /// detection every 0.3 s, that is three detections in a row missing it.
    public var confirmationTimeout = 1.0
    /// A face is followed (and drawn) only while the landmark model sees a face in its crop
    /// with at least this probability, on every frame: below it the face is dropped at once.
    public var minimumFaceProbability = FaceLandmarker.minimumFaceProbability
    /// At most this many faces followed (each costs a mesh a frame, 10-15 ms on the CPU path).
    public var maximumFaces = 4
    /// Two followed faces whose boxes overlap more than this (intersection over union) are the
    /// same face: the younger goes.
    public var duplicateOverlap = FaceMesh.sameFaceOverlap
    /// The 1€ filter on each mesh point, the speed in face sizes per second
    /// (`smoothingParameters`' comment carries the measurements); nil: the raw points.
    public var smoothing: OneEuroFilter.Parameters? = LiveFacesOptions.smoothingParameters
    /// Images placed over regions (as `gpustyle faces --mask`); empty: the regions' outlines
    /// and the face's box are drawn instead.
    public var masks: [FaceRegion: Image] = [:]
    /// Width of the outlines (`masks` empty), pixels.
    public var outlineThickness = 1
    /// Wait for each detection before the next frame (reproducible runs: tests, evaluation).
    public var lockstep = false

    /// 0.3 Hz at rest, beta 40: chosen on the development clip of `tools/evaluate_live_faces.py`
    /// (astronaut over coffee, 640x480, camera noise 2 levels, seed 1, lockstep). Mean mask
    /// centre error / mean frame-to-frame jitter at rest: raw points 1.86 / 0.73 px; 0.5 Hz,
    /// beta 4: 2.72 / 0.08 (the lag costs 1.6 px while the face moves); 1, 10: 2.07 / 0.12;
    /// 0.5, 20: 1.91 / 0.11; 0.3, 40: 1.85 / 0.13; 0.5, 80: 1.84 / 0.18. With 0.3, 40 the
    /// error is the raw points' and the jitter a sixth of theirs.
    public static let smoothingParameters = OneEuroFilter.Parameters(minimumCutoff: 0.3, beta: 40, derivativeCutoff: 1)

    public init() {}
}

/// A frame given to the detection stage, already in RGB (the frame loop converts every frame
/// for the mesh; the stage takes that image, not the frame to convert again).
public struct FaceDetectionJob: Sendable {
    let image: Image
    let index: Int
    let time: Double
}

public struct FaceDetectionOutcome: Sendable {
    let index: Int
    let time: Double
    let faces: [Face]
    let error: String?
}

/// What was drawn on one frame.
public struct LiveFacesReport: Sendable {
    public struct FollowedFace: Sendable {
        /// The same face keeps its id while it is followed.
        public let id: Int
        /// The landmark model's face probability on this frame.
        public let confidence: Float
        /// The face's box: the smoothed mesh's bounding box (x, y, width, height, pixels).
        public let box: (x: Double, y: Double, width: Double, height: Double)
        /// Where a mask of each region goes on this frame (`FaceMasking.placement`), from the
        /// smoothed mesh: drawn masks are placed exactly so.
        public let placements: [FaceRegion: FaceMasking.Placement]
        /// Video seconds since a detection last saw the face.
        public let age: Double
    }

    public let index: Int
    public var faces: [FollowedFace] = []
    /// Faces dropped on this frame (the mesh no longer saw a face, or no detection confirmed it).
    public var lost = 0
    /// A detection was taken on this frame: the index of the frame it was made on.
    public var detectionIndex: Int?
}

/// Live faces: `gpustyle faces` on a video, as MediaPipe's face mesh runs on a camera: the
/// detector finds faces at a bounded rate on its own thread; each face is then followed frame
/// by frame by the landmark model alone, its crop taken from the previous frame's mesh
/// (`FaceCrop(mesh:)`); the points are smoothed by a 1€ filter so that a mask does not shake
/// on a still face; outlines or masks are drawn on the smoothed mesh.
///
/// Measured (`tools/evaluate_live_faces.py`, realtime pace, CPU path, 2 shared cores) on 640x480
/// clips at 30 fps: 30 fps in and out, no input frame dropped; a median frame of 9-12 ms, of
/// which the mesh 5-6 ms; detections 60-90 ms, 3.4 a second. At 1280x720: still 30 fps, a
/// median frame of 19.5 ms, detections 240 ms.
///
/// Verified before drawn: a face is drawn on a frame only if the landmark model sees a face in
/// its crop on that frame (`minimumFaceProbability`) and a detection has seen it within
/// `confirmationTimeout`; otherwise it is dropped at once (a face that leaves the view, turns
/// away or is covered takes its masks with it).
public final class LiveFaces {
    public let options: LiveFacesOptions
    public let stage: AsyncStage<FaceDetectionJob, FaceDetectionOutcome>
    private let landmarker: FaceLandmarker

    private struct Track {
        let id: Int
        /// Where the model looks in the next frame.
        var crop: FaceCrop
        var filter: PointSetFilter?
        /// This frame's smoothed mesh (what is drawn).
        var mesh: FaceMesh
        /// This frame's raw mesh's box: matched against detections.
        var box: BoundingBox
        var confirmedAt: Double
    }

    private var tracks: [Track] = []
    private var nextID = 0
    private var lastStart = -Double.infinity
    private var meshTimes: [Double] = []
    private var stageError: String?


    /// `detect` finds the faces of an image (on the stage's thread only); `landmarker` runs on
    /// the caller's thread, every frame.
    public init(options: LiveFacesOptions = LiveFacesOptions(), landmarker: FaceLandmarker,
                detect: @escaping @Sendable (Image) throws -> [Face]) {
        self.options = options
        self.landmarker = landmarker
        stage = AsyncStage(name: "faces") { job in
            do {
                return FaceDetectionOutcome(index: job.index, time: job.time, faces: try detect(job.image), error: nil)
            } catch {
                return FaceDetectionOutcome(index: job.index, time: job.time, faces: [], error: "\(error)")
            }
        }
    }

    /// With a `FaceDetector` (used only from the stage's thread from here on).
    public convenience init(options: LiveFacesOptions = LiveFacesOptions(), landmarker: FaceLandmarker, detector: FaceDetector) {
        let worker = FaceDetectorWorker(detector)
        let detection = options.detection
        self.init(options: options, landmarker: landmarker) { try worker.detector.detect($0, options: detection) }
    }

    /// Frame `index` at video time `time` (seconds): follows the faces into it, takes a finished
    /// detection, hands the frame to the detector if due, and draws the verified faces.
    public func process(_ frame: YUVFrame, index: Int, time: Double, fullRange: Bool) throws -> (frame: YUVFrame, report: LiveFacesReport) {
        if let stageError { throw LiveStageError(description: "faces: \(stageError)") }
        var report = LiveFacesReport(index: index)
        let image = YUVConversion.image(from: frame, fullRange: fullRange)
        let start = MonotonicClock.seconds()
        var followed: [Track] = []
        for var track in tracks {
            guard try follow(&track, in: image, time: time) else { report.lost += 1; continue }
            followed.append(track)
        }
        tracks = followed
        try take(image, index: index, time: time, report: &report)
        // The meshes' time (a lockstep wait for the detector below is not theirs).
        if !tracks.isEmpty { meshTimes.append(MonotonicClock.seconds() - start) }
        let interval = tracks.isEmpty ? options.searchInterval : options.detectionInterval
        // A millisecond of slack: at 30 fps, frame 3's time (3 / 30) is a hair under 0.1.
        if time - lastStart >= interval - 0.001 {
            if stage.submit(FaceDetectionJob(image: image, index: index, time: time)) { lastStart = time }
            if options.lockstep {
                stage.waitUntilIdle()
                try take(image, index: index, time: time, report: &report)
            }
        }
        if let stageError { throw LiveStageError(description: "faces: \(stageError)") }
        let before = tracks.count
        tracks.removeAll { time - $0.confirmedAt > options.confirmationTimeout || time < $0.confirmedAt }
        report.lost += before - tracks.count
        guard !tracks.isEmpty else { return (frame, report) }
        report.faces = tracks.map { track in
            var placements: [FaceRegion: FaceMasking.Placement] = [:]
            for region in FaceRegion.allCases { placements[region] = FaceMasking.placement(of: region, in: track.mesh) }
            let box = track.mesh.bounds
            return .init(id: track.id, confidence: track.mesh.confidence, box: (box.x0, box.y0, box.width, box.height),
                         placements: placements, age: time - track.confirmedAt)
        }
        return (draw(on: frame, image: image, fullRange: fullRange), report)
    }

    /// The mesh in the track's crop of this frame: false when the model sees no face there.
    private func follow(_ track: inout Track, in image: Image, time: Double) throws -> Bool {
        let raw = try landmarker.mesh(in: track.crop, of: image)
        guard raw.confidence >= options.minimumFaceProbability else { return false }
        track.crop = FaceCrop(mesh: raw)
        track.box = raw.bounds
        var smoothed = raw
        if track.filter != nil { smoothed.points = track.filter!.filter(raw.points, at: time, scale: Self.size(of: track.box)) }
        track.mesh = smoothed
        return true
    }

    /// The size the filter's speed is measured in: the face box's longer side.
    static func size(of box: BoundingBox) -> Double { max(1, max(box.width, box.height)) }

    /// Takes a finished detection, if any: it confirms the followed faces it sees and starts
    /// following the others (their mesh taken on this frame, from the detection's crop).
    private func take(_ image: Image, index: Int, time: Double, report: inout LiveFacesReport) throws {
        guard let outcome = stage.take() else { return }
        if let error = outcome.error {
            stageError = stageError ?? error
            return
        }
        guard outcome.index <= index else { return }
        report.detectionIndex = outcome.index
        for face in outcome.faces.sorted(by: { $0.confidence > $1.confidence }) {
            let box = BoundingBox(face)
            // The detection is from an older frame: the same face if either box's centre lies
            // in the other (a face moves a fraction of its size in a few hundred ms).
            if let slot = tracks.indices.first(where: { tracks[$0].box.contains(box.centre) || box.contains(tracks[$0].box.centre) }) {
                tracks[slot].confirmedAt = max(tracks[slot].confirmedAt, outcome.time)
                continue
            }
            guard tracks.count < options.maximumFaces else { continue }
            var track = Track(id: nextID, crop: FaceCrop(face: face),
                              filter: options.smoothing.map { PointSetFilter(count: FaceLandmarker.pointCount, parameters: $0) },
                              mesh: FaceMesh(points: [], depths: [], confidence: 0), box: box, confirmedAt: outcome.time)
            guard try follow(&track, in: image, time: time) else { continue }
            // Two crops of one face (a detection matched none while the mesh had moved on).
            guard !tracks.contains(where: { $0.box.overlap(track.box) > options.duplicateOverlap }) else { continue }
            tracks.append(track)
            nextID += 1
        }
    }

    /// The frame with the faces' masks, or their boxes and region outlines.
    private func draw(on frame: YUVFrame, image: Image, fullRange: Bool) -> YUVFrame {
        guard options.masks.isEmpty else {
            let masked = FaceMasking.apply(options.masks, meshes: tracks.map(\.mesh), on: image)
            return YUVConversion.frame(from: masked, chroma: frame.chroma, fullRange: fullRange)
        }
        // The faces' coordinates put pixel (i, j) over [i, i + 1); the frame drawer centres it on (i, j).
        func shifted(_ points: [Point]) -> [Point] { points.map { Point(x: $0.x - 0.5, y: $0.y - 0.5) } }
        var lines: [(points: [Point], closed: Bool)] = []
        for track in tracks {
            let box = track.mesh.bounds
            lines.append((shifted([Point(x: box.x0, y: box.y0), Point(x: box.x1, y: box.y0), Point(x: box.x1, y: box.y1),
                                   Point(x: box.x0, y: box.y1)]), true))
            for region in FaceRegion.allCases where region.pupilOf == nil && region != .noseCrest {
                lines.append((shifted(track.mesh.points(of: region)), region.isClosed))
            }
        }
        var out = frame
        QuadOverlay.draw(lines, on: &out, fullRange: fullRange, thickness: options.outlineThickness)
        return out
    }

    /// Seconds per frame spent on the meshes (frames with faces) since the last call.
    public func harvestMeshTimes() -> [Double] {
        defer { meshTimes = [] }
        return meshTimes
    }

    /// Waits for the detection in flight (at shutdown).
    public func finish() {
        stage.drain()
    }
}

/// The detector, used only from the detection stage's thread (hence unchecked).
private final class FaceDetectorWorker: @unchecked Sendable {
    let detector: FaceDetector
    init(_ detector: FaceDetector) { self.detector = detector }
}
