import Foundation
import XCTest
@testable import GPUStyle

/// The 1€ filter against tools/make_one_euro_fixture.py, written from the paper's algorithm:
/// a noisy signal that rests, moves and rests, at uneven times, three parameter sets.
final class OneEuroFilterTests: XCTestCase {
    static var fixture: URL { Fixtures.root.appendingPathComponent("live-faces/one_euro.json") }

    func testMatchesThePapersAlgorithm() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as! [String: Any]
        let times = json["times"] as! [Double], values = json["values"] as! [Double]
        let cases = json["cases"] as! [[String: Any]]
        XCTAssertEqual(cases.count, 3)
        for c in cases {
            var filter = OneEuroFilter(.init(minimumCutoff: c["minimumCutoff"] as! Double, beta: c["beta"] as! Double,
                                             derivativeCutoff: c["derivativeCutoff"] as! Double))
            let expected = c["expected"] as! [Double]
            var worst = 0.0
            for (i, (t, v)) in zip(times, values).enumerated() {
                worst = max(worst, abs(filter.filter(v, at: t, scale: c["scale"] as! Double) - expected[i]))
            }
            XCTAssertLessThan(worst, 1e-9, "\(c["minimumCutoff"]!), \(c["beta"]!)")
        }
    }

    /// It smooths: on the fixture's still start (noise 0.8 on a scale of 100) the output moves
    /// less than half as much as the input from sample to sample.
    func testStillNoisySignalIsSmoothed() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as! [String: Any]
        let times = json["times"] as! [Double], values = json["values"] as! [Double]
        var filter = OneEuroFilter(LiveFacesOptions.smoothingParameters)
        var outputs: [Double] = []
        for (t, v) in zip(times, values) where t < 1 { outputs.append(filter.filter(v, at: t, scale: 100)) }
        func meanStep(_ x: [Double]) -> Double { zip(x.dropFirst(), x).map { abs($0 - $1) }.reduce(0, +) / Double(x.count - 1) }
        let inputs = Array(values.prefix(outputs.count))
        XCTAssertLessThan(meanStep(Array(outputs.dropFirst(10))), 0.5 * meanStep(Array(inputs.dropFirst(10))))
    }

    func testRepeatedTimeKeepsTheOutputAndResetForgets() {
        var filter = OneEuroFilter(.init(minimumCutoff: 1, beta: 0))
        XCTAssertEqual(filter.filter(10, at: 0), 10)
        let second = filter.filter(20, at: 0.1)
        XCTAssertEqual(filter.filter(50, at: 0.1), second)
        filter.reset()
        XCTAssertEqual(filter.filter(50, at: 0.2), 50)
    }

    func testPointSetFilterFiltersEachCoordinateAlone() {
        let parameters = OneEuroFilter.Parameters(minimumCutoff: 0.5, beta: 10)
        var set = PointSetFilter(count: 2, parameters: parameters)
        var xs = [OneEuroFilter(parameters), OneEuroFilter(parameters)], ys = xs
        for k in 0..<20 {
            let t = Double(k) / 30
            let points = [Point(x: Double(k), y: sin(Double(k))), Point(x: -Double(k * k), y: 3)]
            let out = set.filter(points, at: t, scale: 40)
            for i in 0..<2 {
                XCTAssertEqual(out[i].x, xs[i].filter(points[i].x, at: t, scale: 40))
                XCTAssertEqual(out[i].y, ys[i].filter(points[i].y, at: t, scale: 40))
            }
        }
    }
}
