import Foundation
import XCTest
@testable import GPUStyle

/// fp16 storage of the graph networks' intermediate tensors (`VulkanBackend.Options.fp16Storage`,
/// GPUSTYLE_VULKAN_FP16=1): every graph network kind on Vulkan with fp16 storage against the CPU
/// path (an independent fp32 implementation, itself checked against onnxruntime, torch and
/// TFLite by ClassifyTests, FaceDetectorTests, FaceLandmarkerTests, DigitClassifierTests and
/// TextModelParityTests), on the same fixtures those tests use.
///
/// Tolerances. fp16 keeps 11 significant bits, so each stored tensor is rounded by up to 2^-11 ≈
/// 4.9e-4 of its value (2^-10 where the device truncates, as lavapipe does; then the roundings
/// all shrink magnitudes and add up instead of cancelling); the sums stay fp32. MobileNetV2
/// stores ~60 tensors in a chain with its batch norms folded (nothing re-standardises), so up to
/// ~60 × 2^-10 ≈ 6 % on a logit in the worst case; a probability moves by at most p(1 - p) ≤ 1/4
/// of its logit's change, and the winning logits are 5-20 with runners-up a few units below:
/// `probabilityTolerance` 5e-2 (measured on lavapipe: 0.031). Whatever the tolerances, the
/// structure must agree: the same best class and the same top five (two of them closer than the
/// tolerance may trade places), the same faces (count, IoU ≥ 0.99), the same digits, the same
/// text boxes and text read.
final class VulkanGraphHalfStorageTests: VulkanTestCase {
    /// Class probabilities (classify; digits' softmax is on the host): see above.
    static let probabilityTolerance: Float = 5e-2
    /// Boxes of the same face on both paths.
    static let minimumFaceOverlap = 0.99
    /// Face confidences (sigmoid outputs, 0.5-1): a few fp16 roundings of logits of magnitude 1-10.
    static let confidenceTolerance: Float = 1e-2
    /// Face-detector landmarks, in photo pixels: offsets decoded from anchors of 8-32 px with
    /// 0.1 variance, so 1e-3 of an offset is 0.03 px; 0.5 px leaves the room of ~16 such errors.
    static let landmarkTolerance = 0.5
    /// Face-mesh points, in 192-px crop pixels: outputs of magnitude ~100 with ~4e-3 relative
    /// error at the end of a 30-layer chain ≈ 0.4 px; 1 px.
    static let meshTolerance = 1.0
    /// Digit logits (magnitude 5-30, four convolutions and two dense layers): 4e-3 relative ≈
    /// 0.1 absolute.
    static let digitLogitTolerance: Float = 0.15
    /// Text detector probabilities, largest and mean difference. The map is a sigmoid of logits
    /// that are steep across text edges (magnitude ~10): a 4 % logit change there moves a value
    /// near 0.4 by 0.1. Measured on lavapipe, which truncates on fp16 stores so the roundings
    /// add up with one sign: largest 0.096 (at values 0.3-0.6, 0.6 % of the pixels over 0.01),
    /// mean at most 1.1e-3 per crop. The boxes and the text read must agree regardless.
    static let textMapTolerance: Float = 0.15
    static let textMapMeanTolerance: Float = 3e-3
    /// Text box corners, in photo pixels: a map value near the 0.3 threshold may flip, moving a
    /// box edge by one map pixel (the map is the detection side, up to 960 px, scaled back up).
    static let textCornerTolerance = 3.0

    private func fp16Backend() throws -> VulkanBackend {
        if let problem = VulkanBackend.halfStorageProblem(context) {
            throw XCTSkip("\(context.info.name) has no fp16 storage: \(problem)")
        }
        let backend = try VulkanBackend(context: context, weights: [], options: .init(fp16Storage: true))
        XCTAssertEqual(backend.halfBuffers, VulkanBackend.halfStorageBuffers)
        return backend
    }

    private static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        precondition(a.count == b.count, "different lengths")
        return zip(a, b).map { abs($0 - $1) }.max().map { $0.isNaN ? .infinity : $0 } ?? 0
    }

    /// The graph plan held only its pool in fp16 in the last run.
    private func assertRanPoolInHalf(_ backend: VulkanBackend, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(backend.runHalfBuffers, [.pool], "the pool in fp16, the input and result in fp32", file: file, line: line)
    }

    func testClassifyMatchesCPUPath() throws {
        let half = try fp16Backend()
        let model = try ModelLibrary.builtin(ModelLibrary.defaultClassifier)
        let onGPU = try ImageClassifier(model: model, backend: half)
        let onCPU = try ImageClassifier(model: model, backend: CPUBackend(weights: []))
        let onFp32 = try ImageClassifier(model: model, backend: VulkanBackend(context: context, weights: []))
        let cases = try ClassifyFixtures.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 20)
        var worst: Float = 0, differsFromFp32 = false, swaps = 0
        for c in cases {
            let tensor = onCPU.preprocessing.normalized(try ImageIO.read(path: c.crop))
            let expected = try onCPU.probabilities(tensor: tensor)
            let probabilities = try onGPU.probabilities(tensor: tensor)
            assertRanPoolInHalf(half)
            let difference = Self.maxDifference(probabilities, expected)
            worst = max(worst, difference)
            XCTAssertLessThanOrEqual(difference, Self.probabilityTolerance, "\(c.name)")
            // The same best class and the same five; within them two classes closer than the
            // tolerance may trade places.
            let top5 = onGPU.ranked(probabilities, top: 5).map(\.index), cpuTop5 = onCPU.ranked(expected, top: 5).map(\.index)
            XCTAssertEqual(top5.first, cpuTop5.first, "\(c.name): top-1")
            XCTAssertEqual(Set(top5), Set(cpuTop5), "\(c.name): top-5")
            for (a, b) in zip(top5, cpuTop5) where a != b {
                XCTAssertLessThanOrEqual(abs(expected[a] - expected[b]), Self.probabilityTolerance, "\(c.name): rank swap")
                swaps += 1
                print("classify fp16 storage: \(c.name) swaps classes \(a) and \(b) (CPU path \(expected[a]) and \(expected[b]))")
            }
            let fp32 = try onFp32.probabilities(tensor: tensor)
            differsFromFp32 = differsFromFp32 || probabilities != fp32
        }
        XCTAssertTrue(differsFromFp32, "fp16 storage must change the results somewhere (else it did not run)")
        print("classify fp16 storage vs CPU path: largest probability difference \(worst) over \(cases.count) crops, "
              + "\(swaps) top-5 places swapped")
    }

    func testFacesMatchCPUPath() throws {
        let half = try fp16Backend()
        let onGPU = try FaceDetector(backend: half), onCPU = try FaceDetector(backend: CPUBackend(weights: []))
        let fixtures = try FaceFixtures.photos()
        var options = FaceDetector.Options()
        options.minimumConfidence = fixtures.threshold
        options.overlapThreshold = fixtures.overlap
        options.smallestPassSide = 0
        options.enlargement = 1
        var faces = 0, worstOverlap = 1.0, worstPoint = 0.0, worstConfidence: Float = 0
        for photo in fixtures.photos {
            let image = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent(photo.file).path)
            let expected = try onCPU.detect(image, options: options)
            let found = try onGPU.detect(image, options: options)
            assertRanPoolInHalf(half)
            XCTAssertEqual(found.count, expected.count, "\(photo.file): faces found")
            for face in expected {
                guard let match = found.max(by: { $0.overlap(face) < $1.overlap(face) }) else { continue }
                faces += 1
                worstOverlap = min(worstOverlap, match.overlap(face))
                XCTAssertGreaterThanOrEqual(match.overlap(face), Self.minimumFaceOverlap, "\(photo.file)")
                worstConfidence = max(worstConfidence, abs(match.confidence - face.confidence))
                XCTAssertEqual(match.confidence, face.confidence, accuracy: Self.confidenceTolerance, "\(photo.file)")
                for (a, b) in zip(match.landmarks, face.landmarks) {
                    worstPoint = max(worstPoint, a.distance(to: b))
                    XCTAssertLessThanOrEqual(a.distance(to: b), Self.landmarkTolerance, "\(photo.file): landmark")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(faces, 20)
        print("faces fp16 storage vs CPU path: \(faces) faces, smallest IoU \(worstOverlap), largest confidence difference "
              + "\(worstConfidence), largest landmark distance \(worstPoint) px")
    }

    func testMeshMatchesCPUPath() throws {
        let half = try fp16Backend()
        let onGPU = try FaceLandmarker(backend: half), onCPU = try FaceLandmarker(backend: CPUBackend(weights: []))
        let (columns, cases) = try FaceLandmarkFixtures.cases()
        let sheet = try ImageIO.read(path: FaceLandmarkFixtures.root.appendingPathComponent("crops.jpg").path)
        var worst = 0.0, worstLogit: Float = 0
        for index in cases.indices {
            let crop = FaceLandmarkFixtures.crop(index, columns: columns, from: sheet)
            let expected = try onCPU.run(crop: crop), output = try onGPU.run(crop: crop)
            assertRanPoolInHalf(half)
            XCTAssertEqual(output.points.count, expected.points.count)
            for (p, e) in zip(output.points, expected.points) {
                worst = max(worst, Double(max(abs(p.x - e.x), abs(p.y - e.y), abs(p.z - e.z))))
            }
            worstLogit = max(worstLogit, abs(output.faceLogit - expected.faceLogit))
            XCTAssertEqual(output.faceProbability >= FaceLandmarker.minimumFaceProbability,
                           expected.faceProbability >= FaceLandmarker.minimumFaceProbability, "crop \(index): face or not")
        }
        XCTAssertLessThanOrEqual(worst, Self.meshTolerance, "largest point difference \(worst) px")
        print("mesh fp16 storage vs CPU path: largest point difference \(worst) px, face logit \(worstLogit) over \(cases.count) crops")
    }

    func testDigitsMatchCPUPath() throws {
        let half = try fp16Backend()
        var worst: Float = 0
        for model in DigitClassifier.BuiltIn.allCases {
            let onGPU = try DigitFixtures.classifier(model, backend: half)
            let onCPU = try DigitFixtures.classifier(model, backend: CPUBackend(weights: []))
            for c in try DigitFixtures.cases() {
                let expected = try onCPU.logits(c.glyph), logits = try onGPU.logits(c.glyph)
                assertRanPoolInHalf(half)
                let difference = Self.maxDifference(logits, expected)
                worst = max(worst, difference)
                XCTAssertLessThanOrEqual(difference, Self.digitLogitTolerance, "\(model) \(c.name)")
                XCTAssertEqual(DigitFixtures.argmax(logits), DigitFixtures.argmax(expected), "\(model) \(c.name): digit")
            }
        }
        print("digits fp16 storage vs CPU path: largest logit difference \(worst)")
    }

    /// The detector's map on the parity crops, then whole scenes: the same boxes and the same text.
    func testTextMatchesCPUPath() throws {
        let half = try fp16Backend()
        let detector = try TextDetectionNetwork(backend: half), cpuDetector = try TextDetectionNetwork(backend: CPUBackend(weights: []))
        let strip = try ImageIO.read(path: TextModelParityTests.root.appendingPathComponent("det.png").path)
        let (width, height) = (96, 64)
        var worstMap: Float = 0, worstMean: Float = 0
        for i in 0..<strip.width / width {
            let crop = strip.cropped(x: i * width, y: 0, width: width, height: height)
            let map = try detector.probabilities(crop, width: width, height: height)
            assertRanPoolInHalf(half)
            let cpuMap = try cpuDetector.probabilities(crop, width: width, height: height)
            worstMap = max(worstMap, Self.maxDifference(map, cpuMap))
            let mean = zip(map, cpuMap).reduce(Float(0)) { $0 + abs($1.0 - $1.1) } / Float(map.count)
            worstMean = max(worstMean, mean)
            XCTAssertLessThanOrEqual(mean, Self.textMapMeanTolerance, "detector crop \(i): mean difference")
        }
        XCTAssertLessThanOrEqual(worstMap, Self.textMapTolerance)

        let onGPU = try TextReader(backend: half), onCPU = try TextReader(backend: CPUBackend(weights: []))
        let scenes = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("text").path)
            .filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertGreaterThanOrEqual(scenes.count, 3)
        var lines = 0, worstCorner = 0.0
        for scene in scenes {
            let image = try ImageIO.read(path: Fixtures.root.appendingPathComponent("text/\(scene)").path)
            let expected = try onCPU.read(image), found = try onGPU.read(image)
            XCTAssertEqual(found.count, expected.count, "\(scene): lines")
            XCTAssertEqual(found.map(\.string), expected.map(\.string), "\(scene): text read")
            for (a, b) in zip(found, expected) {
                lines += 1
                for (p, q) in zip(a.quad.corners, b.quad.corners) { worstCorner = max(worstCorner, p.distance(to: q)) }
            }
        }
        XCTAssertLessThanOrEqual(worstCorner, Self.textCornerTolerance, "largest corner distance \(worstCorner) px")
        print("text fp16 storage vs CPU path: map \(worstMap) (largest mean \(worstMean)) over \(strip.width / width) crops; \(lines) lines in \(scenes.count) "
              + "scenes, largest corner distance \(worstCorner) px")
    }

    /// What the caller uploads and downloads stays fp32: a plan input -> pool -> result (two
    /// copies) rounds the values once, in the pool; downloading the pool as well makes the run
    /// keep it fp32 (the values come back exactly).
    func testInputAndDownloadsStayFp32() throws {
        let half = try fp16Backend()
        let shape = NetworkGraph.Shape(channels: 3, height: 5, width: 7)
        let input = VulkanTesting.random(shape.elementCount, seed: 4, range: -3...3)
        let inputRegion = ExecutionPlan.Region(buffer: .input, offset: 0, shape: shape)
        let poolRegion = ExecutionPlan.Region(buffer: .pool, offset: 64, shape: shape)
        let resultRegion = ExecutionPlan.Region(buffer: .result, offset: 0, shape: shape)
        let plan = ExecutionPlan(steps: [.copy(.init(input: inputRegion, output: poolRegion)),
                                         .copy(.init(input: poolRegion, output: resultRegion))],
                                 bufferFloats: [.input: shape.elementCount, .pool: 64 + shape.elementCount, .result: shape.elementCount],
                                 inputShape: .init(shape), output: .result, outputShape: .init(shape))
        let rounded = try half.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result])[.result]!
        XCTAssertEqual(half.runHalfBuffers, [.pool])
        // Rounded once, in the pool: to an fp16 value within one fp16 ulp (Vulkan lets a store to an
        // R16 view round to nearest or toward zero; lavapipe truncates).
        var truncated = 0
        for (r, x) in zip(rounded, input) {
            XCTAssertEqual(Float(Float16(r)), r, "\(r) is not an fp16 value")
            XCTAssertLessThan(abs(r - x), Float(Float16(x).ulp), "\(r) for \(x)")
            truncated += abs(r) < abs(x) ? 1 : 0
        }
        XCTAssertNotEqual(rounded, input, "the pool must be fp16")
        print("fp16 pool: \(truncated) of \(input.count) values stored toward zero, "
              + "\(zip(rounded, input).filter { $0 == Float(Float16($1)) }.count) as round-to-nearest")
        let both = try half.run(plan, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result, .pool])
        XCTAssertEqual(half.runHalfBuffers, [])
        XCTAssertEqual(both[.result]!, input, "a downloaded pool stays fp32")
        XCTAssertEqual(Array(both[.pool]![64...]), input)
    }

    /// Without the 16-bit formats (simulated): `--device auto` keeps Vulkan with fp32 storage and
    /// a one-line warning; `--device gpu` refuses fp16 storage with an error that says why.
    func testDeviceWithoutHalfFormats() throws {
        let lacking = try VulkanContext(deviceIndex: context.info.index, options: ComputeOptions(fault: .noHalfFormats))
        let problem = try XCTUnwrap(VulkanBackend.halfStorageProblem(lacking))
        XCTAssertTrue(problem.contains("R16_SFLOAT"), problem)

        let (auto, warning) = VulkanBackend.options(.init(fp16Storage: true), for: lacking, fallbackAllowed: true)
        XCTAssertFalse(auto.fp16Storage)
        let line = try XCTUnwrap(warning)
        XCTAssertTrue(line.hasPrefix("warning: fp16 storage: ") && line.hasSuffix("using fp32 storage"), line)
        XCTAssertFalse(line.contains("\n"))
        XCTAssertTrue(try VulkanBackend(context: lacking, weights: [], options: auto).halfBuffers.isEmpty)

        let (gpu, none) = VulkanBackend.options(.init(fp16Storage: true), for: lacking, fallbackAllowed: false)
        XCTAssertTrue(gpu.fp16Storage)
        XCTAssertNil(none)
        XCTAssertThrowsError(try VulkanBackend(context: lacking, weights: [], options: gpu)) { error in
            XCTAssertTrue("\(error)".contains("fp16 storage was asked for (GPUSTYLE_VULKAN_FP16=1)"), "\(error)")
        }
        XCTAssertThrowsError(try ComputeChoice<NetworkBackend>.choose(
            ComputeOptions(device: .gpu(index: context.info.index), fp16Storage: true, fault: .noHalfFormats), convolutions: [])) { error in
            XCTAssertTrue("\(error)".contains("lacks uniform/storage texel buffers of R16_SFLOAT"), "\(error)")
        }
        // A device that has the formats: nothing changes.
        if VulkanBackend.halfStorageProblem(context) == nil {
            let (kept, quiet) = VulkanBackend.options(.init(fp16Storage: true), for: context, fallbackAllowed: true)
            XCTAssertTrue(kept.fp16Storage)
            XCTAssertNil(quiet)
        }
    }

    /// The binary: fp16 storage asked for with `--device gpu` on a device without the formats
    /// stops with one line that says why (exit 2); with the formats it classifies as fp32 does.
    func testGPUCommandSaysWhyFp16StorageCannotRun() throws {
        let photo = Fixtures.root.appendingPathComponent("photos/astronaut.png").path
        let refused = try TestProcess.gpustyle(["classify", "--device", "gpu", "--gpu-id", "\(context.info.index)", photo],
                                               environment: ["GPUSTYLE_VULKAN_FP16": "1", "GPUSTYLE_VULKAN_FAULT": "no-fp16"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("fp16 storage was asked for (GPUSTYLE_VULKAN_FP16=1)"), refused.stderr)
        XCTAssertTrue(refused.stdout.isEmpty)
        guard VulkanBackend.halfStorageProblem(context) == nil else { return }
        let half = try TestProcess.gpustyle(["classify", "--device", "gpu", "--gpu-id", "\(context.info.index)", photo],
                                            environment: ["GPUSTYLE_VULKAN_FP16": "1"])
        let full = try TestProcess.gpustyle(["classify", "--device", "gpu", "--gpu-id", "\(context.info.index)", photo])
        XCTAssertEqual(half.status, 0, half.stderr)
        // The same best class and the same five (the percentages may differ in the last digits).
        func classes(_ out: Data) -> [String] {
            String(decoding: out, as: UTF8.self).split(separator: "\n").map { String($0.split(separator: "%").last ?? "") }
        }
        XCTAssertEqual(classes(half.stdout).first, classes(full.stdout).first)
        XCTAssertEqual(Set(classes(half.stdout)), Set(classes(full.stdout)))
        XCTAssertEqual(classes(full.stdout).count, 5, String(decoding: full.stdout, as: UTF8.self))
    }

    /// `profile`'s bytes (its GB/s column) count fp16 pool tensors at 2 bytes: a step that reads
    /// and writes only the pool moves half of what it moves with fp32 storage, and a step that
    /// reads the network input (fp32) and writes the pool moves 4 + 2 bytes an element.
    func testProfileCountsHalfBytes() throws {
        let half = try fp16Backend()
        let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: half)
        let plan = try classifier.lowered()
        let input = VulkanTesting.random(plan.inputShape.floatCount, seed: 9, range: -2...2)
        let runs = try Profiler.profile(half, plan: plan, inputs: [.input: input], normParameters: [], runs: 1, warmups: 0)
        XCTAssertEqual(runs.first?.halfBuffers, [.pool])
        let report = ProfileReport(path: "vulkan", device: half.name, plan: plan, runs: runs, limits: nil)
        var checked = 0
        for (row, step) in zip(report.steps, plan.steps) {
            guard let regions = step.graphRegions else { continue }
            let full = step.cost
            let reads = regions.reads.map { Double(($0.buffer == .pool ? 2 : 4) * $0.floatCount) }.reduce(0, +)
            let writes = Double((regions.writes.buffer == .pool ? 2 : 4) * regions.writes.floatCount)
            let weights = full.bytesRead - regions.reads.map { 4 * Double($0.floatCount) }.reduce(0, +)
            XCTAssertEqual(row.bytes, weights + reads + writes, "step \(row.step ?? -1) \(row.kind)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    /// `bench --network`'s bytes (its GB/s column) count fp16 pool tensors at 2 bytes too: the
    /// fp16 path's row is the plan's cost with the run's half buffers, less than the fp32 path's.
    func testBenchCountsHalfBytes() throws {
        let paths = [false, true].map { fp16 in
            NetworkBench.Path(label: fp16 ? "vulkan-fp16" : "vulkan", device: context.info.name, error: nil, context: context,
                              options: ComputeOptions(fp16Storage: fp16))
        }
        let rows = try NetworkBench.run(.digits, sizes: [], paths: paths, runs: 1)
        XCTAssertEqual(rows.map(\.path), ["vulkan", "vulkan-fp16"])
        XCTAssertEqual(rows.compactMap(\.error), [])
        let workload = try NetworkWorkload.make(.digits, width: 0, height: 0)
        XCTAssertEqual(rows[0].bytes, workload.bytes)
        XCTAssertEqual(rows[1].bytes, workload.bytes(halfBuffers: [.pool]))
        XCTAssertLessThan(rows[1].bytes, rows[0].bytes)
    }
}
