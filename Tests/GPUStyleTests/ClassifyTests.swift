import Foundation
import XCTest
@testable import GPUStyle

/// The built-in MobileNetV2 against onnxruntime on the same ONNX export
/// (tools/make_classify_fixtures.py): on every photo the same top-5 classes and every one of the
/// 1000 probabilities within 1e-3, on the CPU path and on Vulkan.
enum ClassifyFixtures {
    struct Case {
        let name: String
        let crop: String
        let top5: [Int]
        let logits: [Float]
    }

    static let folder = "classify"
    static let probabilityTolerance: Float = 1e-3

    static func cases() throws -> [Case] {
        let root = Fixtures.root.appendingPathComponent(folder)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("cases.json"))) as! [String: Any]
        let logits = try Data(contentsOf: root.appendingPathComponent("logits.f32"))
        let all = logits.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (json["cases"] as! [[String: Any]]).compactMap { c in
            guard let crop = c["crop_png"] as? String else { return nil }
            let row = c["logits_row"] as! Int
            return Case(name: c["name"] as! String, crop: root.appendingPathComponent(crop).path,
                        top5: c["top5"] as! [Int], logits: Array(all[row * 1000..<(row + 1) * 1000]))
        }
    }

    static func softmax(_ logits: [Float]) -> [Float] {
        let top = Double(logits.max()!)
        let e = logits.map { exp(Double($0) - top) }
        let sum = e.reduce(0, +)
        return e.map { Float($0 / sum) }
    }

    /// Runs every stored crop through the classifier on `backend`; fails on any difference
    /// beyond the bar, and returns the largest probability difference.
    @discardableResult
    static func check(backend: NetworkBackend, file: StaticString = #filePath, line: UInt = #line) throws -> Float {
        let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier), backend: backend)
        let cases = try cases()
        XCTAssertGreaterThanOrEqual(cases.count, 20, "the parity bar is set on at least 20 photos", file: file, line: line)
        var worst: Float = 0
        for c in cases {
            let crop = try ImageIO.read(path: c.crop)
            XCTAssertEqual([crop.width, crop.height], [224, 224], c.name, file: file, line: line)
            // The crop is the network's input as torch saw it: normalise it the same way.
            let probabilities = try classifier.probabilities(tensor: classifier.preprocessing.normalized(crop))
            let expected = softmax(c.logits)
            let difference = zip(probabilities, expected).map { abs($0 - $1) }.max()!
            worst = max(worst, difference)
            XCTAssertLessThanOrEqual(difference, probabilityTolerance, "\(c.name): probabilities differ by \(difference)",
                                     file: file, line: line)
            XCTAssertEqual(classifier.ranked(probabilities, top: 5).map(\.index), c.top5, c.name, file: file, line: line)
        }
        return worst
    }
}

final class ClassifyCPUTests: XCTestCase {
    func testTop5AndProbabilitiesMatchOnnxruntime() throws {
        let worst = try ClassifyFixtures.check(backend: CPUBackend(weights: []))
        print("classify parity, cpu: largest probability difference \(worst)")
    }

    /// The liveness pool holds far less than every intermediate tensor side by side.
    func testPoolReusesMemory() throws {
        let classifier = try ImageClassifier(model: ModelLibrary.builtin(ModelLibrary.defaultClassifier),
                                             backend: CPUBackend(weights: []))
        let plan = try classifier.lowered()
        var tensors: [Int: Int] = [:]  // pool offset of each written region -> floats (last writer wins)
        var all = 0
        for step in plan.steps.flatMap(\.parts) {
            let writes = step.graphRegions!.writes
            if writes.buffer == .pool { tensors[writes.offset] = writes.floatCount; all += writes.floatCount }
        }
        let pool = plan.bufferFloats[.pool]!
        print("classify plan: \(plan.steps.count) steps, pool \(pool) floats, all intermediate tensors \(all) floats")
        XCTAssertLessThan(pool, all / 3)
        // The peak is the second block (16 -> 96 -> 24, stride 2) run as its parts: its input, the
        // expansion's output and the depthwise output are live at once, and the depthwise input
        // stays live until the projection's output is written (the Vulkan backend fuses the
        // depthwise convolution into the projection there, VulkanBackend.fusesDepthwiseProjection).
        // The pool is exactly that: no allocation leaves a gap.
        let peak = 16 * 112 * 112 + 96 * 112 * 112 + 96 * 56 * 56 + 24 * 56 * 56
        XCTAssertEqual(pool, peak)
    }

    func testBuiltinModelDescribesItself() throws {
        let model = try ModelLibrary.builtin(ModelLibrary.defaultClassifier)
        XCTAssertEqual(model.metadata.labels?.count, 1000)
        XCTAssertEqual(model.metadata.labels?[281], "tabby cat")
        XCTAssertEqual(model.metadata.input, .init(channels: 3, height: 224, width: 224))
        XCTAssertEqual(try model.graph.shapes(input: .init(channels: 3, height: 224, width: 224))[model.graph.output],
                       .init(channels: 1000, height: 1, width: 1))
    }
}

/// bf16 classify (`ConvolutionPrecision.bf16`: the fused blocks' 1x1 convolutions on bf16 pairs,
/// the 320->1280 1x1 and the classifier too, `CKernels/conv2d_graph_bf16.c`) against the fp32 CPU
/// path on every stored crop, within a bound set by bf16 rounding: each of the 34 rounded GEMM
/// inputs and their weights moves a term by at most 2^-9 of itself, so if the errors add as a
/// random walk the logits move by about sqrt(2 x 34) 2^-9 (1/62) of their largest magnitude (delta); softmax turns a logit error of
/// delta into a probability error of at most 2 p delta (p the class's probability). Within that:
/// the same top-1 class, and every class of fp32's top 5 that leads fp32's 6th by more than both
/// classes' bounds stays in the top 5. (Measured on the 22 crops, AMD EPYC Zen 4: the largest
/// probability difference 0.030, 0.63 of its bound; top-1 classes all the same; 2 of 22 top-5
/// lists reordered among near ties, one 5th class swapped.)
final class ClassifyBF16Tests: XCTestCase {
    override func tearDown() {
        ConvolutionPrecision.use(.fp32)
        ConvolutionPrecision.emulateBF16(false)
    }

    /// The bf16 GEMMs' rounded inputs: expansion and projection of the 16 blocks with an
    /// expansion, the 320->1280 1x1 and the classifier.
    static let roundedInputs = 34.0

    func testTop5AndProbabilitiesNearFP32() throws {
        // VDPBF16PS where the CPU has it, else its emulation (slower, the same sums).
        if !ConvolutionPrecision.bf16Supported { ConvolutionPrecision.emulateBF16(true) }
        let model = try ModelLibrary.builtin(ModelLibrary.defaultClassifier)
        let fp32 = try ImageClassifier(model: model, backend: CPUBackend(weights: []))
        let bf16 = try ImageClassifier(model: model, backend: CPUBackend(weights: []))
        var worst: Float = 0, worstShare: Float = 0
        for c in try ClassifyFixtures.cases() {
            let tensor = fp32.preprocessing.normalized(try ImageIO.read(path: c.crop))
            ConvolutionPrecision.use(.fp32)
            let reference = try fp32.probabilities(tensor: tensor)
            ConvolutionPrecision.use(.bf16)
            let got = try bf16.probabilities(tensor: tensor)
            let delta = Float((2 * Self.roundedInputs).squareRoot() * 0x1p-9) * c.logits.map(abs).max()!
            func bound(_ i: Int) -> Float { 2 * reference[i] * delta + 0x1p-20 }
            for i in got.indices {
                let difference = abs(got[i] - reference[i])
                worst = max(worst, difference)
                worstShare = max(worstShare, difference / bound(i))
                XCTAssertLessThanOrEqual(difference, bound(i), "\(c.name): class \(i) \(reference[i]) -> \(got[i])")
            }
            let ranked = fp32.ranked(reference, top: 6).map(\.index), top5 = Set(bf16.ranked(got, top: 5).map(\.index))
            XCTAssertEqual(bf16.ranked(got, top: 1)[0].index, ranked[0], "\(c.name): top-1")
            for i in ranked.prefix(5) where reference[i] - reference[ranked[5]] > bound(i) + bound(ranked[5]) {
                XCTAssertTrue(top5.contains(i), "\(c.name): class \(i) left the top 5")
            }
        }
        print("classify bf16 against fp32: largest probability difference \(worst), \(worstShare) of its bound")
    }
}

final class ClassifyVulkanTests: VulkanTestCase {
    func testTop5AndProbabilitiesMatchOnnxruntime() throws {
        let worst = try ClassifyFixtures.check(backend: VulkanBackend(context: context, weights: []))
        print("classify parity, vulkan: largest probability difference \(worst)")
    }
}
