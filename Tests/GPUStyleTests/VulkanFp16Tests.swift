import Foundation
import XCTest
@testable import GPUStyle

/// fp16 activation storage (`VulkanBackend.Options.fp16Storage`, env GPUSTYLE_VULKAN_FP16=1) on
/// the device at hand with validation on: lavapipe gains nothing from it, but the switch must
/// stay correct for GPUs where it halves memory traffic.
///
/// Tolerance: fp16 keeps 11 significant bits, so each stored activation is rounded by up to
/// 2^-11 ≈ 4.9e-4 relative. Instance norm re-standardises every layer (the statistics stay
/// fp32), so rounding does not compound multiplicatively, but 19 layers and residual blocks
/// add a few dozen such roundings; the output is a sigmoid in [0, 1]. 2e-2 max abs is ~40
/// output-level fp16 ulps and 10x the fp32 tolerance (NetworkTests.tolerance, 2e-3).
final class VulkanFp16Tests: VulkanTestCase {
    private static let model = Result { try StyleModel.bundled() }
    static let tolerance: Float = 2e-2

    private func stylize(_ backend: VulkanBackend, _ input: [Float], height: Int, width: Int, mix: StyleMix) throws -> [Float] {
        try OpHarness.runNetwork(backend, input, height: height, width: width, mix: mix, model: Self.model.get())
    }

    private func maxError(_ a: [Float], _ b: [Float]) -> (max: Float, mean: Double) {
        precondition(a.count == b.count)
        var worst: Float = 0, total: Double = 0
        for (x, y) in zip(a, b) {
            let d = abs(x - y)
            worst = d > worst || d.isNaN ? d : worst
            total += Double(d)
        }
        return (worst, total / Double(max(a.count, 1)))
    }

    func testOptionsDefaultToFp32() throws {
        XCTAssertFalse(VulkanBackend.Options().fp16Storage)
        let backend = try VulkanBackend(context: context, weights: Self.model.get().convolutions)
        XCTAssertFalse(backend.options.fp16Storage)
        XCTAssertTrue(backend.halfBuffers.isEmpty)
    }

    /// Every onnxruntime fixture (three photos, styles and a blend) with fp16 storage, and the
    /// fp32 path on the same context still within NetworkTests.tolerance.
    func testFp16MatchesOnnxRuntime() throws {
        let model = try Self.model.get()
        let half = try VulkanBackend(context: context, weights: model.convolutions, options: .init(fp16Storage: true))
        let full = try VulkanBackend(context: context, weights: model.convolutions)
        XCTAssertEqual(half.halfBuffers, [.padded, .a, .b, .c, .pool])
        let halfStylizer = Stylizer(model: model, backend: half), fullStylizer = Stylizer(model: model, backend: full)
        var worstHalf: Float = 0, worstFull: Float = 0
        let cases = try NetworkTests.cases()
        XCTAssertGreaterThanOrEqual(cases.count, 10, "3 photos x 3 styles + a blend")
        for c in cases {
            let input = c.fixture["input"]!
            let (height, width) = (input.shape[1], input.shape[2])
            let expected = c.fixture[c.key]!.values
            let halfOutput = try halfStylizer.stylize(NetworkTests.image(from: input), mix: c.mix).rgb
            let fullOutput = try fullStylizer.stylize(NetworkTests.image(from: input), mix: c.mix).rgb
            XCTAssertFalse(halfOutput.contains { !$0.isFinite }, "\(c.photo) \(c.key): fp16 output has NaN/inf")
            let h = maxError(halfOutput, expected), f = maxError(fullOutput, expected)
            XCTAssertLessThanOrEqual(h.max, Self.tolerance, "\(c.photo) \(c.key): fp16 vs onnxruntime")
            XCTAssertLessThanOrEqual(f.max, NetworkTests.tolerance, "\(c.photo) \(c.key): fp32 vs onnxruntime")
            // The switch really changes the path: fp16 rounding shows up somewhere.
            XCTAssertNotEqual(halfOutput, fullOutput, "\(c.photo) \(c.key): fp16 output identical to fp32")
            print("fp16 \(c.photo) \(c.key) \(height)x\(width): max |fp16 - ort| \(h.max), mean \(h.mean); "
                  + "fp32 max \(f.max), mean \(f.mean)")
            worstHalf = max(worstHalf, h.max)
            worstFull = max(worstFull, f.max)
        }
        print("fp16 storage worst max abs error vs onnxruntime: \(worstHalf) (fp32: \(worstFull))")
        XCTAssertTrue(half.recorder.labels.count > 0)
    }

    /// Channel chunking with 2-byte elements: a small binding limit splits pads, norms and
    /// convolutions (including input chunks accumulated through the fp16 output view), so
    /// chunk offsets are 128-byte multiples of fp16 planes.
    func testFp16ChunkedMatchesUnchunked() throws {
        let weights = try Self.model.get().convolutions
        let (height, width) = (64, 64)
        let input = VulkanTesting.random(3 * height * width, seed: 11, range: 0...1)
        let mix = try StyleMix(parsing: "2:0.6,9:0.4")
        let plain = try VulkanBackend(context: context, weights: weights, options: .init(fp16Storage: true))
        let reference = try stylize(plain, input, height: height, width: width, mix: mix)
        let chunked = try VulkanBackend(context: context, weights: weights, options: .init(fp16Storage: true))
        // Four full-resolution output planes (64 x 64 floats) per binding: padded full-resolution
        // inputs (66 x 112 floats a plane) then come two planes a chunk.
        chunked.maxBindingBytes = 4 * 4 * height * width
        let output = try stylize(chunked, input, height: height, width: width, mix: mix)
        XCTAssertTrue(chunked.recorder.labels.contains { $0.contains("conv layer") && !$0.contains("ci0..<") },
                      "the test must split convolution inputs")
        let fp32 = try stylize(try VulkanBackend(context: context, weights: weights), input, height: height, width: width, mix: mix)
        XCTAssertFalse(output.contains { !$0.isFinite })
        // Accumulating input chunks rounds partial sums to fp16, so not bit-identical.
        XCTAssertLessThanOrEqual(maxError(output, reference).max, Self.tolerance, "chunked vs unchunked fp16")
        XCTAssertLessThanOrEqual(maxError(output, fp32).max, Self.tolerance, "chunked fp16 vs fp32")
    }

    /// Tiled execution with fp16 storage (refused before fp16 storage covered every network):
    /// a tile's plan downloads its output and moments, which stay fp32 for that run while its
    /// other buffers are fp16. Within the fp16 tolerance of the CPU path's whole image.
    func testFp16Tiles() throws {
        let model = try Self.model.get()
        let half = try VulkanBackend(context: context, weights: model.convolutions, options: .init(fp16Storage: true))
        let image = try TiledStylizerTests.photo("astronaut", width: 90, height: 70)
        let mix = try StyleMix(style: 7)
        let tiler = TiledStylizer(backend: half, model: model,
                                  layout: TilingLayout(keepsContraction: true, scratchBytes: TiledStylizerTests.tinyScratch))
        let tiled = try tiler.stylize(image, mix: mix, strength: 1)
        XCTAssertGreaterThan(tiler.tiles, 18 * 4, "every pass should run several tiles")
        XCTAssertFalse(half.runHalfBuffers.isEmpty, "the tiles' other buffers in fp16")
        let cpu = try Stylizer(model: model, backend: CPUBackend(weights: model.convolutions)).stylize(image, mix: mix)
        let error = maxError(tiled.rgb, cpu.rgb)
        XCTAssertLessThanOrEqual(error.max, Self.tolerance, "fp16 tiles vs the CPU path's whole image")
        print("fp16 tiles vs CPU whole image: max \(error.max), mean \(error.mean)")
    }

    /// fp16 vs fp32 speed (GPUSTYLE_VULKAN_BENCH=1): warm runs without validation.
    func testBenchmark() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_VULKAN_BENCH"] == "1" else {
            throw XCTSkip("set GPUSTYLE_VULKAN_BENCH=1 to measure")
        }
        let context = try VulkanContext(validation: false)
        let weights = try Self.model.get().convolutions
        let sizes = (ProcessInfo.processInfo.environment["GPUSTYLE_VULKAN_BENCH_SIZES"] ?? "256x256")
            .split(separator: ",").map { $0.split(separator: "x").map { Int($0)! } }
        for size in sizes {
            let (height, width) = (size[0], size[1])
            let plan = try Self.model.get().plan(height: height, width: width)
            let input = VulkanTesting.random(plan.inputShape.floatCount, seed: 5, range: 0...1)
            let parameters = try Self.model.get().normParameters(for: StyleMix(style: 0))
            for fp16 in [false, true] {
                let backend = try VulkanBackend(context: context, weights: weights, options: .init(fp16Storage: fp16))
                _ = try backend.run(plan, inputs: [.input: input], normParameters: parameters)  // compiles shaders
                let best = try OpHarness.fastestSeconds(of: 5) {
                    _ = try backend.run(plan, inputs: [.input: input], normParameters: parameters)
                }
                print(String(format: "vulkan %@ %dx%d: %.1f ms", fp16 ? "fp16" : "fp32", height, width, best * 1e3))
            }
        }
    }
}
