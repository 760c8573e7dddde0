import Foundation
import XCTest
@testable import GPUStyle

/// The N-point homography fits (plain and robust) that the live tracker rests on.
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
}
