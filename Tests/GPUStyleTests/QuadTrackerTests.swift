import Foundation
import XCTest
@testable import GPUStyle

/// `QuadTracker` on synthetic video with known motion (`TrackingScene`), and the homography
/// fitting it rests on.
final class QuadTrackerTests: XCTestCase {
    // MARK: N-point homography

    /// A perspective mapping of a 640×480 frame with every entry in play.
    static let knownMatrix = Homography(matrix: [1.08, 0.12, -35.5, -0.07, 0.94, 21.25, 2.1e-4, -1.3e-4, 1])

    /// `count` points spread over the frame (deterministic).
    static func scatter(_ count: Int, seed: UInt64) -> [Point] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            Point(x: Double(random.index(below: 640_000)) / 1000, y: Double(random.index(below: 480_000)) / 1000)
        }
    }

    /// Normal deviates by Box-Muller.
    static func gaussian(_ random: inout SeededRandom, sigma: Double) -> Point {
        let u1 = (Double(random.index(below: 1 << 30)) + 1) / Double(1 << 30)
        let u2 = Double(random.index(below: 1 << 30)) / Double(1 << 30)
        let r = sigma * (-2 * log(u1)).squareRoot()
        return Point(x: r * cos(2 * Double.pi * u2), y: r * sin(2 * Double.pi * u2))
    }

    /// Largest distance between where two mappings send a grid over the frame.
    static func mappingError(_ a: Homography, _ b: Homography) -> Double {
        var worst = 0.0
        for y in stride(from: 0.0, through: 480, by: 40) {
            for x in stride(from: 0.0, through: 640, by: 40) {
                worst = max(worst, a.apply(Point(x: x, y: y)).distance(to: b.apply(Point(x: x, y: y))))
            }
        }
        return worst
    }

    func testSymmetricEigenOfKnownMatrix() {
        // Q D Qᵀ with Q a rotation in the (0, 2) plane and eigenvalues 3, −1, 0.5.
        let c = cos(0.3), s = sin(0.3)
        let a = [3 * c * c + 0.5 * s * s, 0, (3 - 0.5) * c * s,
                 0, -1, 0,
                 (3 - 0.5) * c * s, 0, 3 * s * s + 0.5 * c * c]
        let (values, vectors) = SymmetricEigen.decompose(a, size: 3)
        XCTAssertEqual(values[0], -1, accuracy: 1e-12)
        XCTAssertEqual(values[1], 0.5, accuracy: 1e-12)
        XCTAssertEqual(values[2], 3, accuracy: 1e-12)
        XCTAssertEqual(abs(vectors[1][0] * -s + vectors[1][2] * c), 1, accuracy: 1e-12)
        XCTAssertEqual(abs(vectors[2][0] * c + vectors[2][2] * s), 1, accuracy: 1e-12)
    }

    func testLeastSquaresRecoversExactHomography() throws {
        let h = Self.knownMatrix
        for count in [4, 5, 30, 200] {
            let source = Self.scatter(count, seed: UInt64(count))
            let fit = try XCTUnwrap(Homography.leastSquares(from: source, to: source.map { h.apply($0) }), "\(count) points")
            let worst = zip(fit.matrix, h.matrix).map { abs($0 - $1) }.max()!
            XCTAssertLessThan(worst, 1e-9, "\(count) points: \(fit) vs \(h)")
            XCTAssertLessThan(Self.mappingError(fit, h), 1e-7, "\(count) points")
        }
        // Four pairs: the same mapping as the exact 4-point solver.
        let square = [Point(x: 10, y: 20), Point(x: 600, y: 35), Point(x: 620, y: 450), Point(x: 30, y: 470)]
        let four = try Homography(from: square, to: square.map { h.apply($0) })
        let fit = try XCTUnwrap(Homography.leastSquares(from: square, to: square.map { h.apply($0) }))
        XCTAssertLessThan(Self.mappingError(fit, four), 1e-7)
    }

    func testLeastSquaresAveragesNoise() throws {
        let h = Self.knownMatrix
        var random = SeededRandom(seed: 7)
        let source = Self.scatter(300, seed: 11)
        let destination = source.map { h.apply($0) + Self.gaussian(&random, sigma: 0.5) }
        let fit = try XCTUnwrap(Homography.leastSquares(from: source, to: destination))
        // 0.5 px noise on 300 pairs: the fitted mapping is good to about 0.5 · √(8 / 300) ≈ 0.08 px
        // in the middle, a few times that at the frame's corners.
        let error = Self.mappingError(fit, h)
        XCTAssertLessThan(error, 0.3)
        // The residuals are the noise: RMS near 0.5 · √2 per point.
        var sum = 0.0
        for (s, d) in zip(source, destination) { sum += fit.apply(s).distance(to: d) * fit.apply(s).distance(to: d) }
        let rms = (sum / 300).squareRoot()
        XCTAssertEqual(rms, 0.5 * 2.0.squareRoot(), accuracy: 0.1)
    }

    func testLeastSquaresRejectsDegeneratePoints() {
        let line = (0..<10).map { Point(x: Double($0) * 30, y: 2 * Double($0) * 30 + 5) }
        XCTAssertNil(Homography.leastSquares(from: line, to: line))
        let three = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 0, y: 100)]
        XCTAssertNil(Homography.leastSquares(from: three, to: three))
        let same = [Point](repeating: Point(x: 5, y: 5), count: 6)
        XCTAssertNil(Homography.leastSquares(from: same, to: same))
    }

    /// The affine fit a partly visible picture's motion uses (`QuadTrackerOptions.affineBelowVisibleShare`).
    func testAffineLeastSquaresRecoversExactAffineAndAveragesNoise() throws {
        let a = Homography(matrix: [0.97, -0.12, 14.5, 0.09, 1.03, -7.25, 0, 0, 1])
        for count in [3, 4, 50] {
            let source = Self.scatter(count, seed: UInt64(40 + count))
            let fit = try XCTUnwrap(Homography.affineLeastSquares(from: source, to: source.map { a.apply($0) }), "\(count) points")
            XCTAssertLessThan(zip(fit.matrix, a.matrix).map { abs($0 - $1) }.max()!, 1e-9, "\(count) points: \(fit)")
        }
        var random = SeededRandom(seed: 9)
        let source = Self.scatter(300, seed: 12)
        let noisy = try XCTUnwrap(Homography.affineLeastSquares(from: source, to: source.map { a.apply($0) + Self.gaussian(&random, sigma: 0.5) }))
        XCTAssertLessThan(Self.mappingError(noisy, a), 0.3)
        let line = (0..<10).map { Point(x: Double($0) * 30, y: 2 * Double($0) * 30 + 5) }
        XCTAssertNil(Homography.affineLeastSquares(from: line, to: line))
        XCTAssertNil(Homography.affineLeastSquares(from: Array(source.prefix(2)), to: Array(source.prefix(2))))
    }

    func testRobustFitIgnoresGrossOutliers() throws {
        let h = Self.knownMatrix
        var random = SeededRandom(seed: 3)
        let source = Self.scatter(120, seed: 5)
        var destination = source.map { h.apply($0) + Self.gaussian(&random, sigma: 0.2) }
        // 40% of the pairs point anywhere (an occluder, a look-alike, a lost track).
        var outliers = Set<Int>()
        for i in stride(from: 0, to: 120, by: 5) {
            for j in [i, i + 2] {
                outliers.insert(j)
                destination[j] = destination[j] + Point(x: Double(random.index(below: 80)) - 40, y: 5 + Double(random.index(below: 40)))
            }
        }
        var sampler = SeededRandom(seed: 1)
        let fit = try XCTUnwrap(RobustHomography.fit(from: source, to: destination,
                                                     settings: .init(threshold: 1, maximumIterations: 500), random: &sampler))
        XCTAssertLessThan(Self.mappingError(fit.homography, h), 0.2)
        for i in 0..<120 {
            XCTAssertEqual(fit.inliers[i], !outliers.contains(i), "pair \(i)")
        }
        // The plain least-squares fit on the same pairs is far off: the outliers do matter.
        let plain = try XCTUnwrap(Homography.leastSquares(from: source, to: destination))
        XCTAssertGreaterThan(Self.mappingError(plain, h), 5)
    }

    // MARK: tracking

    /// A 30-frame trajectory: translation, rotation, growth and a changing tilt. `size` scales
    /// it for frames larger than 640×480.
    static func trajectory(_ scene: TrackingScene, _ t: Double, size: Double = 1) -> Homography {
        scene.placement(cx: (300 + 3 * t) * size, cy: (240 - 1.5 * t + 8 * sin(t / 4)) * size,
                        scale: 0.5 * size * (1 + 0.008 * t), degrees: 0.4 * t, px: 2.5e-4 * sin(t / 6),
                        py: -1.5e-4 * t / 30)
    }

    /// Auto-exposure at work: the whole frame brightens and darkens by up to 10%.
    static func exposure(_ t: Int) -> Float { 1 + 0.1 * Float(sin(Double(t) / 3)) }

    /// Tracks `frames` frames of `trajectory` and returns the worst corner error.
    func trackTrajectory(_ scene: TrackingScene, frames: Int, size: Double, limit: Double) throws -> Double {
        let tracker = QuadTracker()
        var previousTruth = scene.quad(Self.trajectory(scene, 0, size: size))
        tracker.reset(to: previousTruth, in: try scene.frame(Self.trajectory(scene, 0, size: size)))
        XCTAssertEqual(tracker.quad, previousTruth)
        var worst = 0.0
        for t in 1...frames {
            let placement = Self.trajectory(scene, Double(t), size: size)
            let truth = scene.quad(placement)
            let result = try XCTUnwrap(tracker.track(try scene.frame(placement, exposure: Self.exposure(t))),
                                       "frame \(t): \(String(describing: tracker.lastFailure))")
            let error = TrackingScene.cornerError(result.quad, truth)
            worst = max(worst, error)
            XCTAssertLessThan(error, limit, "frame \(t)")
            XCTAssertEqual(tracker.quad, result.quad)
            XCTAssertEqual(tracker.motion, result.motion)
            // The motion is the scene's: it carries the true previous quad to the true new one.
            let carried = Quad(corners: previousTruth.corners.map { result.motion.apply($0) })
            XCTAssertLessThan(TrackingScene.cornerError(carried, truth), limit, "frame \(t): motion")
            previousTruth = truth
        }
        return worst
    }

    func testTracksMovingPictureWithinOnePixel() throws {
        let worst = try trackTrajectory(try TrackingScene(), frames: 30, size: 1, limit: 1)
        print("QuadTracker 640x480: worst corner error over 30 frames \(worst) px")
    }

    /// 1280×720: the working image is reduced 3× (not 2×), so a working pixel is 3 frame pixels;
    /// the same motion, twice as large, is still tracked within a frame pixel.
    func testTracksMovingPictureAt720p() throws {
        let worst = try trackTrajectory(try TrackingScene(width: 1280, height: 720), frames: 15, size: 2, limit: 1)
        print("QuadTracker 1280x720: worst corner error over 15 frames \(worst) px")
    }

    /// A shaking camera: the picture jumps 60 frame pixels (30 working pixels) one way, then
    /// back, frame after frame. Needs the fourth pyramid level.
    func testFollowsFastShake() throws {
        let scene = try TrackingScene()
        let placement = { (t: Int) in
            scene.placement(cx: 250 + 60 * Double(t % 2), cy: 240 - 18 * Double(t % 2), scale: 0.5, degrees: 2 * Double(t % 2))
        }
        let tracker = QuadTracker()
        tracker.reset(to: scene.quad(placement(0)), in: try scene.frame(placement(0)))
        for t in 1...6 {
            let result = try XCTUnwrap(tracker.track(try scene.frame(placement(t))),
                                       "frame \(t): \(String(describing: tracker.lastFailure))")
            XCTAssertLessThan(TrackingScene.cornerError(result.quad, scene.quad(placement(t))), 1, "frame \(t)")
        }
    }

    func testTracksThroughMovingOccluder() throws {
        let scene = try TrackingScene()
        let cat = try TrackingScene.fixture("photos/chelsea.png")
        // A cat photo (130×98) crossing the picture left to right and a little down, faster
        // than the picture: about a fifth of it is hidden at a time.
        let occluder = { (t: Int) in Homography.translation(130 + 9 * Double(t), 150 + 2 * Double(t)) }
        let tracker = QuadTracker()
        tracker.reset(to: scene.quad(Self.trajectory(scene, 0)),
                      in: try scene.frame(Self.trajectory(scene, 0), occluders: [(cat, occluder(0))]))
        var worst = 0.0, rejected = 0, outliers = 0
        for t in 1...30 {
            let placement = Self.trajectory(scene, Double(t))
            let truth = scene.quad(placement)
            let result = try XCTUnwrap(tracker.track(try scene.frame(placement, occluders: [(cat, occluder(t))])),
                                       "frame \(t): \(String(describing: tracker.lastFailure))")
            let error = TrackingScene.cornerError(result.quad, truth)
            worst = max(worst, error)
            rejected += tracker.lastPointCount - tracker.lastInlierCount
            outliers += tracker.lastTrackedCount - tracker.lastInlierCount
            XCTAssertLessThan(error, 1.0, "frame \(t)")
        }
        // The occluder did cost points: lost by the forward-backward and correlation checks, and
        // tracked consistently (with the cat) but rejected by the robust fit.
        XCTAssertGreaterThan(rejected, 20)
        XCTAssertGreaterThan(outliers, 5)
        print("QuadTracker: occluder: worst corner error \(worst) px, \(rejected) points rejected, \(outliers) by the fit")
    }

    func testFailsWhenPictureIsReplaced() throws {
        let scene = try TrackingScene()
        let sudoku = try TrackingScene.sudoku()
        for moving in [true, false] {
            let placement = { (t: Int) in moving ? Self.trajectory(scene, Double(t)) : Self.trajectory(scene, 0) }
            let tracker = QuadTracker()
            tracker.reset(to: scene.quad(placement(0)), in: try scene.frame(placement(0)))
            for t in 1...5 {
                XCTAssertNotNil(tracker.track(try scene.frame(placement(t))), "moving \(moving), frame \(t)")
            }
            // The same quad now holds an unrelated picture.
            let result = tracker.track(try scene.frame(placement(6), content: sudoku))
            XCTAssertNil(result, "moving \(moving): tracked into unrelated content: \(String(describing: result?.quad))")
            XCTAssertNil(tracker.quad)
            XCTAssertNil(tracker.motion)
            XCTAssertTrue([.tooFewPoints, .tooFewInliers, .noConsistentMotion].contains(tracker.lastFailure),
                          "moving \(moving): \(String(describing: tracker.lastFailure))")
            // Nothing to track until the next reset.
            XCTAssertNil(tracker.track(try scene.frame(placement(7))))
        }
    }

    func testFailsWhenPictureLeavesFrame() throws {
        let scene = try TrackingScene()
        let placement = { (t: Int) in scene.placement(cx: 320 + 12 * Double(t), cy: 240 + Double(t), scale: 0.5, degrees: 0.2 * Double(t)) }
        let tracker = QuadTracker()
        tracker.reset(to: scene.quad(placement(0)), in: try scene.frame(placement(0)))
        var failedAt: Int? = nil
        for t in 1...45 {
            let truth = scene.quad(placement(t))
            let visible = TrackedQuadCheck.visibleShare(truth, width: scene.width, height: scene.height)
            guard let result = tracker.track(try scene.frame(placement(t))) else {
                failedAt = t
                print("QuadTracker: left the frame: failed at frame \(t), \(visible) visible: \(String(describing: tracker.lastFailure))")
                break
            }
            let error = TrackingScene.cornerError(result.quad, truth)
            // While it reports a quad, the quad is right (corners outside the frame included).
            XCTAssertLessThan(error, 1.5, "frame \(t), \(visible) visible")
        }
        let t = try XCTUnwrap(failedAt, "still tracking a picture that left the frame")
        let visible = TrackedQuadCheck.visibleShare(scene.quad(placement(t)), width: scene.width, height: scene.height)
        // Gave up once less than half of it was in view, not long before.
        XCTAssertLessThan(visible, 0.5)
        XCTAssertGreaterThan(visible, 0.3)
        XCTAssertNil(tracker.quad)
    }

    func testResetClearAndFrameSize() throws {
        let scene = try TrackingScene()
        let placement = Self.trajectory(scene, 0)
        let frame = try scene.frame(placement), next = try scene.frame(Self.trajectory(scene, 1))
        let quad = scene.quad(placement)
        let tracker = QuadTracker()
        XCTAssertNil(tracker.quad)
        XCTAssertNil(tracker.track(frame), "nothing to track before a reset")
        // Counter-clockwise corners are refused, like everywhere else quads are warped.
        tracker.reset(to: Quad(corners: quad.corners.reversed()), in: frame)
        XCTAssertNil(tracker.quad)
        XCTAssertNil(tracker.track(next))
        tracker.reset(to: quad, in: frame)
        XCTAssertEqual(tracker.quad, quad)
        XCTAssertNil(tracker.motion)
        tracker.clear()
        XCTAssertNil(tracker.quad)
        XCTAssertNil(tracker.track(next))
        // A frame of another size is not the same video.
        tracker.reset(to: quad, in: frame)
        XCTAssertNil(tracker.track(try TrackingScene(width: 800, height: 600).frame(Self.trajectory(scene, 1))))
        XCTAssertEqual(tracker.lastFailure, .frameSizeChanged)
        XCTAssertNil(tracker.quad)
        // Seeded sampling: the same frames give the same quads, run after run.
        var quads: [Quad] = []
        for _ in 0..<2 {
            tracker.reset(to: quad, in: frame)
            quads.append(try XCTUnwrap(tracker.track(next)).quad)
        }
        XCTAssertEqual(quads[0], quads[1])
    }
}
