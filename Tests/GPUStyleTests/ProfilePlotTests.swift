import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle profile --plot`: the chart is a PNG of the promised size whose bars are as long as
/// the measured times say, with roofline gauges filled to the achieved fraction; bad paths fail
/// in one line with status 2 and leave nothing behind.
final class ProfilePlotTests: XCTestCase {
    private static let white: [Float] = [1, 1, 1]

    private func pixel(_ image: Image, _ x: Int, _ y: Int) -> [Float] {
        let plane = image.width * image.height
        return (0..<3).map { image.rgb[$0 * plane + y * image.width + x] }
    }

    /// Length of the run of same-coloured, non-white pixels starting at (x, y).
    private func runLength(_ image: Image, x: Int, y: Int, skipping track: [Float]? = nil) -> Int {
        let color = pixel(image, x, y)
        guard color != Self.white, color != track else { return 0 }
        var n = 0
        while x + n < image.width, pixel(image, x + n, y) == color { n += 1 }
        return n
    }

    private func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A report whose step times are chosen, not measured, so the expected bars are known exactly.
    private func report(_ path: String, plan: ExecutionPlan, milliseconds: [Double], limits: DeviceLimits) -> ProfileReport {
        var start = 0.0
        let slices = milliseconds.enumerated().map { step, ms -> ProfileSlice in
            defer { start += ms / 1000 }
            return ProfileSlice(name: "step \(step)", step: step, start: start, duration: ms / 1000)
        }
        let run = ProfiledRun(wallSeconds: start, deviceSeconds: nil, slices: slices)
        return ProfileReport(path: path, device: "test device", plan: plan, runs: [run], limits: limits)
    }

    func testBarsAndGaugesAreProportionalToTimes() throws {
        let plan = try StyleModel.bundled().plan(height: 64, width: 64).unfusingPads()
        let limits = DeviceLimits(device: "test", gflops: 200, gbps: 20)
        let count = plan.steps.count
        // Distinct, irregular times; the two paths have their longest step in different places.
        let cpu = (0..<count).map { 0.05 + Double(($0 * 37) % 53) * 0.1 }
        let vulkan = (0..<count).map { 0.2 + Double(($0 * 11) % 29) * 0.3 }
        let plot = ProfilePlot(reports: [report("cpu", plan: plan, milliseconds: cpu, limits: limits),
                                         report("vulkan", plan: plan, milliseconds: vulkan, limits: limits)])
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("plot.png").path
        try plot.write(to: path)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG signature")
        let image = try ImageIO.read(path: path)
        XCTAssertEqual(image.width, 2 * ProfilePlot.Layout.panelWidth)
        XCTAssertEqual(image.height, plot.height)
        XCTAssertGreaterThan(image.height, ProfilePlot.Layout.stepRowTop(count))

        for (panel, times) in [cpu, vulkan].enumerated() {
            let longest = times.max()!
            let left = ProfilePlot.Layout.barLeft(panel: panel)
            func measured(_ step: Int) -> Int {
                runLength(image, x: left, y: ProfilePlot.Layout.barCenter(rowTop: ProfilePlot.Layout.stepRowTop(step)))
            }
            let top = times.firstIndex(of: longest)!
            XCTAssertEqual(measured(top), ProfilePlot.Layout.barWidth, accuracy: 1, "panel \(panel): the longest step spans the bar width")
            // Every other step, against the times we chose (not against the plot's own arithmetic).
            for step in 0..<count where step != top {
                let expected = Double(ProfilePlot.Layout.barWidth) * times[step] / longest
                XCTAssertEqual(Double(measured(step)), expected, accuracy: 1.5, "panel \(panel) step \(step)")
            }
            // The first convolution's gauge: achieved GFLOP/s over the peak.
            let conv = plan.steps.firstIndex { $0.cost.flops > 0 }!
            let fraction = plan.steps[conv].cost.flops / (times[conv] * 1e6) / limits.gflops
            XCTAssertLessThan(fraction, 1, "the test wants a partly filled gauge")
            let gaugeY = ProfilePlot.Layout.barCenter(rowTop: ProfilePlot.Layout.stepRowTop(conv))
            let filled = runLength(image, x: ProfilePlot.Layout.gaugeLeft(panel: panel), y: gaugeY)
            XCTAssertEqual(Double(filled), fraction * Double(ProfilePlot.Layout.gaugeWidth), accuracy: 1.5, "panel \(panel) gauge")
        }
    }

    func testCLIPlotMatchesItsJSONTimes() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plotPath = dir.appendingPathComponent("profile.png").path
        let result = try TestProcess.gpustyle(["profile", "--device", "cpu", "--size", "64x64", "--runs", "2",
                                               "--json", "--plot", plotPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["profile.png"], "no temp files left")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let report = try XCTUnwrap((object?["reports"] as? [[String: Any]])?.first)
        let times = try XCTUnwrap(report["steps"] as? [[String: Any]]).map { try XCTUnwrap($0["ms"] as? Double) }

        let image = try ImageIO.read(path: plotPath)
        XCTAssertEqual(image.width, ProfilePlot.Layout.panelWidth)
        XCTAssertGreaterThan(image.height, ProfilePlot.Layout.stepRowTop(times.count))
        let longest = times.max()!
        let left = ProfilePlot.Layout.barLeft(panel: 0)
        func measured(_ step: Int) -> Int {
            runLength(image, x: left, y: ProfilePlot.Layout.barCenter(rowTop: ProfilePlot.Layout.stepRowTop(step)))
        }
        let top = times.firstIndex(of: longest)!
        XCTAssertEqual(measured(top), ProfilePlot.Layout.barWidth, accuracy: 1)
        // The step closest to half the longest: a bar that is neither full nor tiny.
        let middle = times.indices.min { abs(times[$0] - longest / 2) < abs(times[$1] - longest / 2) }!
        XCTAssertEqual(Double(measured(middle)), Double(ProfilePlot.Layout.barWidth) * times[middle] / longest, accuracy: 1.5)
    }

    func testCLIBadPlotPathExitsTwoAndWritesNothing() throws {
        let dir = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = [dir.appendingPathComponent("missing/plot.png").path, dir.path, "", "-"]
        for path in cases {
            let result = try TestProcess.gpustyle(["profile", "--device", "cpu", "--size", "64x64", "--runs", "1",
                                                   "--skip-limits", "--plot", path])
            XCTAssertEqual(result.status, 2, "\(path): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "one line for \(path): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, "\(path): no profile is printed when the chart cannot be written")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing left behind")
    }
}
