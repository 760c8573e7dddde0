import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle profile`: per-step / per-dispatch times account for the run, the trace is valid
/// Chrome trace JSON, and the command's exit statuses.
final class ProfileTests: XCTestCase {
    private static let model = Result { try StyleModel.bundled() }

    private func inputs(_ plan: ExecutionPlan) -> [ExecutionPlan.Buffer: [Float]] {
        let n = plan.bufferFloats[.input]!
        return [.input: (0..<n).map { Float(($0 * 7919) % 1000) / 1000 }]
    }

    /// The slices are ordered, do not overlap and lie inside the run, so they never add up to
    /// more than the run. How much of the run they cover is timing: on this shared 2-core
    /// machine one run in a few loses ~20 % to a descheduled thread (CI, 2026-11-26: 32.5 of
    /// 40.5 ms), so the coverage is checked on the best run, where it is 95-99 %.
    private func assertSumsToTotal(_ runs: [ProfiledRun], file: StaticString = #filePath, line: UInt = #line) {
        for run in runs {
            XCTAssertTrue(run.slices.allSatisfy { $0.duration >= 0 && $0.start >= -1e-9 }, file: file, line: line)
            XCTAssertTrue(zip(run.slices, run.slices.dropFirst()).allSatisfy { $0.start + $0.duration <= $1.start + 1e-9 },
                          "slices are ordered and do not overlap", file: file, line: line)
            XCTAssertLessThanOrEqual(run.slicesSeconds, run.wallSeconds * 1.0001, file: file, line: line)
        }
        let best = runs.map { $0.slicesSeconds / $0.wallSeconds }.max() ?? 0
        XCTAssertGreaterThanOrEqual(best, 0.75, "the slices cover at best \(best * 100) % of a run", file: file, line: line)
    }

    func testCPUStepTimesSumToRunTotal() throws {
        let model = try Self.model.get()
        let backend = CPUBackend(weights: model.convolutions)
        let plan = try Self.model.get().plan(height: 256, width: 256)
        let runs = try Profiler.profile(backend, plan: plan, inputs: inputs(plan),
                                        normParameters: model.normParameters(for: StyleMix(style: 1)), runs: 5)
        XCTAssertEqual(runs.count, 5)
        for run in runs {
            XCTAssertEqual(run.slices.count, plan.steps.count)
            XCTAssertEqual(run.slices.map { $0.step! }, Array(plan.steps.indices))
        }
        assertSumsToTotal(runs)
        XCTAssertNil(backend.stepObserver, "the profiler restores the observer")
    }

    /// The residual blocks' 3x3 layers (32 -> 32) run Winograd on the CPU and the report marks
    /// them, since their GFLOP/s count direct-convolution FLOPs; the other convolutions are not.
    func testCPUReportMarksWinogradConvolutions() throws {
        let model = try Self.model.get()
        let backend = CPUBackend(weights: model.convolutions)
        backend.winogradMinimumMapBytes = 0  // at 64x64 the residual maps are below the default
        let plan = try model.plan(height: 64, width: 64)
        let runs = try Profiler.profile(backend, plan: plan, inputs: inputs(plan),
                                        normParameters: model.normParameters(for: StyleMix(style: 1)), runs: 1)
        let report = ProfileReport(path: "cpu", device: backend.name, plan: plan, runs: runs, limits: nil,
                                   kernelNote: { backend.kernelNote(for: $0, in: plan) })
        let marked = report.steps.filter { $0.kind.hasSuffix(ProfileReport.winogradMark) }.map(\.layer)
        XCTAssertEqual(marked, StyleNetwork.layers.map(\.name).filter { $0.hasPrefix("res.") })
        backend.winogradMinimumMapBytes = nil
        XCTAssertTrue(plan.steps.allSatisfy { backend.kernelNote(for: $0, in: plan) == nil })
    }

    /// The graph convolutions the CPU path runs by Winograd's F(4x4, 3x3) (`gs_conv2d_kind` 6:
    /// 3x3, stride 1, same size, 16+ channels both sides, maps 64+ wide) are marked as the style
    /// network's are: RetinaFace's context modules at 640x480 (80x60 maps) and none of the
    /// 40-wide ones or the other kinds.
    func testCPUReportMarksGraphWinogradConvolutions() throws {
        let plan = try NetworkWorkload.make(.faces, width: 640, height: 480).plan
        let backend = CPUBackend(weights: [])
        var marked = 0
        for step in plan.steps {
            guard case .conv2d(let conv) = step else {
                XCTAssertNil(backend.kernelNote(for: step, in: plan))
                continue
            }
            let winograd = conv.kernelHeight == 3 && conv.kernelWidth == 3 && conv.strideX == 1 && conv.strideY == 1
                && conv.groups == 1 && conv.output.height == conv.input.height && conv.output.width == conv.input.width
                && min(conv.input.channels, conv.output.channels) >= 16 && conv.output.width >= 64
            XCTAssertEqual(backend.kernelNote(for: step, in: plan), winograd ? ProfileReport.winogradMark : nil,
                           "\(conv.input) -> \(conv.output)")
            marked += winograd ? 1 : 0
        }
        XCTAssertGreaterThan(marked, 0)
    }

    func testVulkanDispatchTimesSumToRunTotal() throws {
        let context = try VulkanTesting.context()
        defer { VulkanTesting.assertNoValidationErrors(context) }
        let model = try Self.model.get()
        let backend = try VulkanBackend(context: context, weights: model.convolutions)
        XCTAssertFalse(backend.profiling)
        // As `gpustyle profile` runs it: fused convolutions as their parts, one step each.
        let fused = try Self.model.get().plan(height: 256, width: 256)
        let plan = fused.unfusingPads()
        let parameters = model.normParameters(for: try StyleMix(style: 1))
        XCTAssertEqual(try backend.run(fused, inputs: inputs(plan), normParameters: parameters),
                       try backend.run(plan, inputs: inputs(plan), normParameters: parameters), "the parts are the fused steps")
        let reference = try backend.run(plan, inputs: inputs(plan), normParameters: parameters)
        XCTAssertNil(backend.lastTimings, "no timestamps unless profiling")

        let runs = try Profiler.profile(backend, plan: plan, inputs: inputs(plan), normParameters: parameters, runs: 2)
        XCTAssertFalse(backend.profiling, "the profiler turns profiling back off")
        for run in runs {
            // At 256x256 nothing is chunked: one dispatch per step, in order.
            XCTAssertEqual(run.slices.map { $0.step! }, Array(plan.steps.indices))
            XCTAssertTrue(run.slices.allSatisfy { $0.duration > 0 && $0.start >= 0 })
            XCTAssertEqual(zip(run.slices, run.slices.dropFirst()).allSatisfy { $0.start + $0.duration <= $1.start + 1e-9 }, true,
                           "dispatches are ordered and do not overlap")
            let device = try XCTUnwrap(run.deviceSeconds)
            XCTAssertLessThanOrEqual(run.slicesSeconds, device * 1.0001)
            XCTAssertLessThanOrEqual(device, run.wallSeconds)
        }
        assertSumsToTotal(runs)

        // Timestamps change nothing in the results.
        try backend.setProfiling(true)
        let profiled = try backend.run(plan, inputs: inputs(plan), normParameters: parameters)
        XCTAssertEqual(profiled, reference)
        try backend.setProfiling(false)
    }

    func testMicroBenchmarksMeasurePlausibleLimits() throws {
        let cpu = MicroBenchmarks.cpu(repeats: 1)
        XCTAssertGreaterThan(cpu.gflops, 0.5)
        XCTAssertGreaterThan(cpu.gbps, 0.1)
        let context = try VulkanTesting.context()
        defer { VulkanTesting.assertNoValidationErrors(context) }
        let backend = try VulkanBackend(context: context, weights: try Self.model.get().convolutions)
        let gpu = try MicroBenchmarks.vulkan(backend, repeats: 1)
        XCTAssertGreaterThan(gpu.gflops, 0.1)
        XCTAssertGreaterThan(gpu.gbps, 0.01)
        XCTAssertFalse(backend.profiling, "the micro-benchmarks leave profiling as it was")
    }

    func testTraceIsChromeTraceJSON() throws {
        let model = try Self.model.get()
        let backend = CPUBackend(weights: model.convolutions)
        let plan = try Self.model.get().plan(height: 64, width: 64)
        let runs = try Profiler.profile(backend, plan: plan, inputs: inputs(plan),
                                        normParameters: model.normParameters(for: StyleMix(style: 0)), runs: 1)
        var trace = ChromeTrace()
        trace.add(runs[0].slices, track: .init(pid: 1, tid: 1, name: "cpu"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try trace.write(to: path)
        try Self.checkTrace(at: path, expectedEvents: plan.steps.count)
    }

    /// Parses a trace file and checks the Chrome trace format's required keys.
    static func checkTrace(at path: String, expectedEvents: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let root = try XCTUnwrap(object as? [String: Any], file: file, line: line)
        XCTAssertEqual(root["displayTimeUnit"] as? String, "ms", file: file, line: line)
        let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(events.count, expectedEvents, file: file, line: line)
        for event in events {
            XCTAssertEqual(event["ph"] as? String, "X", file: file, line: line)
            XCTAssertFalse((event["name"] as? String ?? "").isEmpty, file: file, line: line)
            let ts = try XCTUnwrap(event["ts"] as? Double, file: file, line: line)
            let dur = try XCTUnwrap(event["dur"] as? Double, file: file, line: line)
            XCTAssertGreaterThanOrEqual(ts, 0, file: file, line: line)
            XCTAssertGreaterThanOrEqual(dur, 0, file: file, line: line)
            XCTAssertNotNil(event["pid"] as? Int, file: file, line: line)
            XCTAssertNotNil(event["tid"] as? Int, file: file, line: line)
            XCTAssertNotNil(event["args"] as? [String: Any], file: file, line: line)
        }
    }

    func testCLIWritesTraceAndExitsZero() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("profile-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("trace.json").path
        let result = try TestProcess.gpustyle(["profile", "--device", "cpu", "--size", "64x64", "--runs", "2",
                                               "--skip-limits", "--json", "--trace", trace])
        XCTAssertEqual(result.status, 0, result.stderr)
        try Self.checkTrace(at: trace, expectedEvents: try Self.model.get().plan(height: 64, width: 64).steps.count)
        let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let reports = try XCTUnwrap(report?["reports"] as? [[String: Any]])
        XCTAssertEqual(reports.first?["path"] as? String, "cpu")
        XCTAssertEqual((reports.first?["steps"] as? [Any])?.count, try Self.model.get().plan(height: 64, width: 64).steps.count)
        // No temp files left beside the trace.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["trace.json"])
    }

    func testCLIBadArgumentsExitTwo() throws {
        for arguments in [["--size", "12x12"], ["--size", "abc"], ["--runs", "0"], ["--device", "tpu"], ["--frobnicate"]] {
            let result = try TestProcess.gpustyle(["profile"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
        }
    }

    /// `profile --network` for every network on both paths: the same columns on the CPU path
    /// (step times) and on Vulkan (dispatch timestamps per step), every step timed, the graph
    /// networks' steps the same on both paths, and the totals consistent (steps and kinds sum
    /// to the steps' total; GFLOP/s and GB/s are the step's FLOPs and bytes over its time).
    func testEveryNetworkHasTheSameColumnsOnBothPaths() throws {
        let networks: [(BenchNetwork, [String])] = [(.style, ["--size", "64x64"]), (.classify, []), (.faces, ["--size", "64x64"]),
                                                     (.mesh, []), (.digits, []), (.textDetection, ["--size", "64x64"]),
                                                     (.textRecognition, ["--size", "64x48"])]
        for (network, size) in networks {
            let run = try TestProcess.gpustyle(["profile", "--network", network.rawValue, "--runs", "1", "--skip-limits", "--json"] + size)
            XCTAssertEqual(run.status, 0, run.stderr)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            let reports = try XCTUnwrap(object["reports"] as? [[String: Any]])
            XCTAssertEqual(reports.map { $0["path"] as? String }, ["cpu", "vulkan"], "\(network): \(object["notes"] ?? "")")
            var stepKinds: [[String]] = []
            for report in reports {
                let what = "\(network) \(report["path"]!)"
                let steps = try XCTUnwrap(report["steps"] as? [[String: Any]], what)
                let kinds = try XCTUnwrap(report["kinds"] as? [[String: Any]], what)
                XCTAssertEqual(Set(steps.flatMap(\.keys)), ["step", "layer", "kind", "count", "ms", "share", "gflops", "gbps", "flops",
                                                            "bytes", "intensity"], what)
                XCTAssertTrue(steps.allSatisfy { ($0["bytes"] as? Double ?? 0) > 0 }, what)
                // Every step is timed, but an add that takes the 1x1 convolution's output just
                // before it is that convolution's epilogue on both paths (VulkanBackend.fusedAdd,
                // CPUBackend.fusedAdd): its time is the convolution's.
                for (n, step) in steps.enumerated() where (step["ms"] as? Double ?? 0) <= 0 {
                    let pointwise = report["path"] as? String == "vulkan" ? "conv2d 1x1 [pointwise]" : "conv2d 1x1"
                    let fused = n > 0 && step["kind"] as? String == "add"
                        && (steps[n - 1]["kind"] as? String ?? "").hasPrefix(pointwise)
                    XCTAssertTrue(fused, "\(what): step \(n) (\(step["kind"] ?? "")) untimed")
                }
                for step in steps where (step["flops"] as? Double ?? 0) > 0 {
                    let ms = step["ms"] as! Double
                    XCTAssertEqual(step["gflops"] as! Double, step["flops"] as! Double / (ms * 1e6), accuracy: 1e-6, what)
                    XCTAssertEqual(step["gbps"] as! Double, step["bytes"] as! Double / (ms * 1e6), accuracy: 1e-6, what)
                }
                let total = try XCTUnwrap(report["steps_ms"] as? Double)
                XCTAssertEqual(steps.reduce(0) { $0 + ($1["ms"] as! Double) }, total, accuracy: 1e-6 * total, what)
                XCTAssertEqual(kinds.reduce(0) { $0 + ($1["ms"] as! Double) }, total, accuracy: 1e-6 * total, what)
                XCTAssertEqual(kinds.reduce(0) { $0 + ($1["count"] as! Int) }, steps.count, what)
                XCTAssertLessThanOrEqual(total, (report["wall_ms"] as? Double ?? 0) * 1.0001, what)
                stepKinds.append(steps.map { "\($0["kind"]!) \($0["layer"]!)" })
            }
            // The Vulkan plan runs a fused step's parts (a style convolution's, an inverted
            // residual block's) as steps of their own, and names each convolution's shader
            // (or marks it winograd*: conv2d_graph_winograd.comp).
            let vulkanKinds = stepKinds[1].map {
                $0.replacingOccurrences(of: #" \[[^\]]*\]"#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: " " + ProfileReport.winogradMark, with: "")
            }
            let cpuKinds = stepKinds[0].map { $0.replacingOccurrences(of: " " + ProfileReport.winogradMark, with: "") }
            if network != .style && !stepKinds[0].contains(where: { $0.hasPrefix("inverted_residual") }) {
                XCTAssertEqual(cpuKinds, vulkanKinds, "\(network): the same steps on both paths")
            }
            // A block's depthwise, projection and add stay one step where the backend fuses them.
            XCTAssertFalse(stepKinds[1].contains { $0.hasPrefix("inverted_residual") && !$0.contains("[dwpw]") },
                           "\(network): blocks split on Vulkan")
            XCTAssertNotNil(reports[1]["device_ms"], "\(network): the Vulkan path's device span")
        }
    }

    /// MobileNetV2 on Vulkan: the blocks as their convolutions, each named by the shader that
    /// runs it, and the convolution table's rows per kind add up to the convolutions' time.
    func testVulkanClassifyProfileNamesEachConvolutionsShader() throws {
        let run = try TestProcess.gpustyle(["profile", "--network", "classify", "--device", "gpu", "--runs", "1", "--skip-limits"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = String(decoding: run.stdout, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("convolution kind") }, text)
        let rows = lines[(start + 1)...].prefix { !$0.isEmpty }
        let kinds = rows.map { $0.components(separatedBy: "  ")[0] }
        for kind in ["conv2d 1x1 [pointwise]", "conv2d depthwise 3x3 [depthwise]", "conv2d depthwise 3x3/2 [depthwise]",
                     "conv2d 3x3/2 [general]", "conv2d 1x1 [gemv]", "inverted_residual 3x3 [dwpw]",
                     "inverted_residual 3x3/2 [dwpw]", "all convolutions"] {
            XCTAssertTrue(kinds.contains(kind), "\(kind) in \(kinds)")
        }
        func steps(_ row: String) -> Int { Int(row.split(separator: " ", omittingEmptySubsequences: true).first { Int($0) != nil }!)! }
        // MobileNetV2: 52 convolutions and the classifier (1x1 on a 1x1 map); a fused block's
        // step ("[dwpw]", conv2d_graph_dwpw.comp) is two of them.
        let fused = rows.filter { $0.contains("[dwpw]") }.map(steps).reduce(0, +)
        XCTAssertGreaterThan(fused, 0)
        XCTAssertEqual(rows.dropLast().map(steps).reduce(0, +) + fused, 53)
        XCTAssertEqual(steps(rows.last!) + fused, 53)
    }

    /// With the limits measured (no --skip-limits), every step on both paths is placed on its
    /// device's roofline: a bound and a positive fraction of that limit.
    func testDigitsProfileAgainstMeasuredLimits() throws {
        let run = try TestProcess.gpustyle(["profile", "--network", "digits", "--runs", "2", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let reports = try XCTUnwrap((try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])?["reports"] as? [[String: Any]])
        XCTAssertEqual(reports.map { $0["path"] as? String }, ["cpu", "vulkan"])
        for report in reports {
            XCTAssertEqual(report["size"] as? String, "28x28")
            let limits = try XCTUnwrap(report["limits"] as? [String: Any])
            XCTAssertGreaterThan(limits["peak_gflops"] as? Double ?? 0, 0)
            XCTAssertGreaterThan(limits["copy_gbps"] as? Double ?? 0, 0)
            let steps = try XCTUnwrap(report["steps"] as? [[String: Any]])
            XCTAssertFalse(steps.isEmpty)
            for step in steps {
                XCTAssertTrue(["compute", "memory"].contains(step["bound"] as? String ?? ""), "\(step)")
                XCTAssertGreaterThan(step["fraction_of_limit"] as? Double ?? 0, 0, "\(step)")
            }
        }
        let sized = try TestProcess.gpustyle(["profile", "--network", "digits", "--size", "64x64"])
        XCTAssertEqual(sized.status, 2, "digits runs at its fixed size: \(sized.stderr)")
    }
}
