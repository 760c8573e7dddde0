import Foundation
import XCTest
@testable import GPUStyle

/// The whole network on the Vulkan backend: against the numpy/onnxruntime reference outputs in
/// Fixtures/network, against the CPU backend, and at 1920x1080 (tensors beyond
/// maxStorageBufferRange).
final class VulkanNetworkTests: VulkanTestCase {
    private static let model = Result { try StyleModel.bundled() }

    private var backend: VulkanBackend!

    override func setUpWithError() throws {
        try super.setUpWithError()
        backend = try VulkanBackend(context: context, weights: Self.model.get().convolutions)
    }

    override func tearDown() {
        backend = nil
        super.tearDown()
    }

    fileprivate func stylize(_ backend: NetworkBackend, _ input: [Float], height: Int, width: Int, mix: StyleMix) throws -> [Float] {
        try OpHarness.runNetwork(backend, input, height: height, width: width, mix: mix, model: Self.model.get())
    }

    func testNetworkMatchesReferenceOutputs() throws {
        for name in ["astronaut", "coffee"] {
            let t = try VulkanTesting.fixture("network/\(name).gpsw")
            let input = t["input"]!
            let (height, width) = (input.shape[1], input.shape[2])
            for (key, tensor) in t where key != "input" {
                let mix: StyleMix
                if key.hasPrefix("style_") {
                    mix = try StyleMix(style: Int(key.dropFirst(6))!)
                } else if key.hasPrefix("blend_") {
                    let f = key.dropFirst(6).split(separator: "_")  // blend_3_0.5_12_0.5
                    mix = try StyleMix(parsing: stride(from: 0, to: f.count, by: 2).map { "\(f[$0]):\(f[$0 + 1])" }.joined(separator: ","))
                } else {
                    continue
                }
                let output = try stylize(backend, input.values, height: height, width: width, mix: mix)
                // Outputs are in [0, 1]; 19 layers of fp32 with different summation orders.
                VulkanTesting.assertClose(output, tensor.values, relative: 1e-3, "\(name) \(key)")
            }
        }
    }

    func testNetworkMatchesCPUBackend() throws {
        let (height, width) = (64, 96)
        let input = VulkanTesting.random(3 * height * width, seed: 7, range: 0...1)
        let mix = try StyleMix(parsing: "5:0.3,21:0.7")
        let cpu = CPUBackend(weights: try Self.model.get().convolutions)
        let expected = try stylize(cpu, input, height: height, width: width, mix: mix)
        let output = try stylize(backend, input, height: height, width: width, mix: mix)
        VulkanTesting.assertClose(output, expected, relative: 1e-3, "64x96 vs CPU backend")
        // A second run reuses pipelines, buffers and descriptor pools.
        let again = try stylize(backend, input, height: height, width: width, mix: mix)
        XCTAssertEqual(again, output)
    }

    /// 1920x1080: 32-channel full-resolution maps are ~265 MB, beyond lavapipe's 128 MiB
    /// maxStorageBufferRange, so pads, convolutions (output chunks, and input chunks summed in
    /// place) and norms run in channel chunks.
    func testFullHD() throws {
        let (height, width) = (1080, 1920)
        // Parts 1 and 2 take steps from the front of the plan: its fused convolutions as their parts.
        let fused = try Self.model.get().plan(height: height, width: width)
        let plan = fused.unfusingPads()
        XCTAssertGreaterThan(plan.bufferFloats.values.max()! * 4, context.info.maxStorageBufferRange,
                             "the test must exercise chunking")
        // A smooth synthetic photo, so statistics resemble a real image's.
        var input = [Float](repeating: 0, count: 3 * height * width)
        for c in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    input[(c * height + y) * width + x] = 0.5 + 0.4 * sin(Float(x) * 0.013 * Float(c + 1)) * cos(Float(y) * 0.021)
                }
            }
        }
        let dense = OpHarness.planar(input, plan.inputShape)
        let model = try Self.model.get()
        let parameters = model.normParameters(for: try StyleMix(style: 11))
        let cpu = CPUBackend(weights: model.convolutions)

        // 1. The first convolution (32 output planes of 8 MB: two output chunks) against a direct
        //    sum on sampled points, corners and edges included.
        guard case .pad(let pad0) = plan.steps[0], case .convolution(let conv0) = plan.steps[1] else {
            return XCTFail("unexpected plan")
        }
        let convPlan = ExecutionPlan(steps: Array(plan.steps.prefix(2)), bufferFloats: plan.bufferFloats,
                                     inputShape: plan.inputShape, output: conv0.destination, outputShape: conv0.outputShape)
        let convOut = try backend.run(convPlan, inputs: [.input: dense], normParameters: parameters)
        let weights = model.constant(.weights, layer: 0)
        let k = conv0.kernel
        func reflect(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i) }
        var samples = [(0, 0, 0), (31, height - 1, width - 1), (5, 0, width - 1), (17, height - 1, 0), (9, 3, 2)]
        samples += VulkanTesting.random(3 * 200, seed: 3, range: 0...1).chunked3.map {
            (Int($0 * 31.99), Int($1 * Float(height - 1)), Int($2 * Float(width - 1)))
        }
        for (co, y, x) in samples {
            var sum: Double = 0
            for ci in 0..<3 {
                for ky in 0..<k {
                    for kx in 0..<k {
                        let sy = reflect(y + ky - pad0.padding, height), sx = reflect(x + kx - pad0.padding, width)
                        sum += Double(weights[((co * 3 + ci) * k + ky) * k + kx]) * Double(input[(ci * height + sy) * width + sx])
                    }
                }
            }
            let got = convOut[co * conv0.outputShape.planeStride + y * width + x]
            XCTAssertEqual(Double(got), sum, accuracy: 1e-4 * max(1, abs(sum)), "conv0 [\(co)][\(y)][\(x)]")
        }

        // 2. The first two layers (chunked pads, stride-2 conv summing three input chunks, norms
        //    over 2 million pixels) against the CPU backend at op tolerance.
        guard case .instanceNormApply(let norm1) = plan.steps[7] else { return XCTFail("unexpected plan") }
        let prefix = ExecutionPlan(steps: Array(plan.steps.prefix(8)), bufferFloats: plan.bufferFloats,
                                   inputShape: plan.inputShape, output: norm1.destination, outputShape: norm1.shape)
        VulkanTesting.assertClose(try backend.run(prefix, inputs: [.input: dense], normParameters: parameters),
                                  try cpu.run(prefix, inputs: [.input: dense], normParameters: parameters),
                                  relative: 1e-4, "1920x1080 first two layers vs CPU backend")

        // 3. The whole network. Two fp32 implementations drift apart through 19 layers (residual
        //    blocks amplify rounding differences): measured max 2.3e-3, mean 1.2e-5 on [0, 1].
        let start = Date()
        let output = OpHarness.dense(try backend.run(fused, inputs: [.input: dense], normParameters: parameters), plan.outputShape)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertTrue(backend.recorder.labels.contains { $0.contains("conv layer 1") && $0.contains("ci15..<30") },
                      "contract.1 should sum its 271 MB padded input in 15-channel chunks")
        let expected = OpHarness.dense(try cpu.run(fused, inputs: [.input: dense], normParameters: parameters), plan.outputShape)
        var worst: Float = 0, total: Double = 0
        for (a, b) in zip(output, expected) {
            let d = abs(a - b)
            worst = d > worst || d.isNaN ? d : worst
            total += Double(d)
        }
        XCTAssertLessThan(worst, 1e-2, "1920x1080 output vs CPU backend: max error")
        XCTAssertLessThan(total / Double(output.count), 1e-4, "1920x1080 output vs CPU backend: mean error")
        print("1920x1080 on \(backend.name) with validation: \(String(format: "%.1f", seconds)) s, "
              + "max |vulkan - cpu| \(worst), mean \(total / Double(output.count))")
    }

    /// Throughput report (GPUSTYLE_VULKAN_BENCH=1): warm runs without validation.
    func testBenchmark() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_VULKAN_BENCH"] == "1" else {
            throw XCTSkip("set GPUSTYLE_VULKAN_BENCH=1 to measure")
        }
        let context = try VulkanContext(validation: false)
        let backend = try VulkanBackend(context: context, weights: try Self.model.get().convolutions)
        let sizes = (ProcessInfo.processInfo.environment["GPUSTYLE_VULKAN_BENCH_SIZES"] ?? "256x256,512x512")
            .split(separator: ",").map { $0.split(separator: "x").map { Int($0)! } }
        for size in sizes {
            let (height, width) = (size[0], size[1])
            let plan = try Self.model.get().plan(height: height, width: width)
            let input = [Float](repeating: 0.5, count: plan.inputShape.floatCount)
            let parameters = try Self.model.get().normParameters(for: StyleMix(style: 0))
            _ = try backend.run(plan, inputs: [.input: input], normParameters: parameters)  // compiles shaders
            let best = try OpHarness.fastestSeconds(of: 3) {
                _ = try backend.run(plan, inputs: [.input: input], normParameters: parameters)
            }
            let gflop = 2 * Double(StyleNetwork.macs(height: height, width: width)) / 1e9
            print(String(format: "vulkan %dx%d: %.1f ms, %.1f GFLOP/s (%.2f GFLOP)", height, width, best * 1e3, gflop / best, gflop))
        }
    }
}

extension Array where Element == Float {
    /// Consecutive triples.
    fileprivate var chunked3: [(Float, Float, Float)] {
        stride(from: 0, to: count - 2, by: 3).map { (self[$0], self[$0 + 1], self[$0 + 2]) }
    }
}
