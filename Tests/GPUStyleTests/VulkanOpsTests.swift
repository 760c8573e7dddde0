import XCTest
@testable import GPUStyle

/// Each shader against the independent numpy reference fixtures (tools/ writes them to
/// Fixtures/ops), once with whole-tensor bindings and once with bindings forced small so the
/// channel-chunking path (used for 1080p maps on lavapipe) runs too.
final class VulkanOpsTests: VulkanTestCase {
    private func scalar(_ tensors: [String: NamedTensor], _ name: String) -> Int {
        Int(tensors[name]!.values[0])
    }

    private func shape(_ tensor: NamedTensor) -> ExecutionPlan.DenseShape {
        ExecutionPlan.DenseShape(channels: tensor.shape[0], height: tensor.shape[1], width: tensor.shape[2])
    }

    // MARK: pad

    /// `chunkPlanes`: force bindings of that many padded planes (nil: whole tensors).
    private func checkPad(_ file: String, split: Bool, chunkPlanes: Int?) throws {
        let t = try VulkanTesting.fixture(file)
        let input = t["input"]!, expected = t["output"]!
        let source = shape(input)
        let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: source,
                                    upsample: scalar(t, "upsample") != 0, padding: scalar(t, "padding"), split: split)
        XCTAssertEqual([pad.paddedHeight, pad.paddedWidth], Array(expected.shape[1...]), file)
        let plan = ExecutionPlan(steps: [.pad(pad)], bufferFloats: [.input: source.floatCount, .padded: pad.floatCount],
                                 inputShape: source, output: .padded, outputShape: source)
        let backend = try VulkanBackend(context: context, weights: [])
        if let chunkPlanes { backend.maxBindingBytes = 4 * chunkPlanes * pad.planeStride }
        let out = try backend.run(plan, inputs: [.input: OpHarness.planar(input.values, source)], normParameters: [])
        for c in 0..<source.channels {
            for r in 0..<pad.paddedHeight {
                for x in 0..<pad.paddedWidth {
                    let column = split ? (x % 2 == 0 ? x / 2 : pad.oddColumnsStart + x / 2) : x
                    let got = out[c * pad.planeStride + r * pad.rowStride + column]
                    let want = expected.values[(c * pad.paddedHeight + r) * pad.paddedWidth + x]
                    if got != want {
                        return XCTFail("\(file) split=\(split): [\(c)][\(r)][\(x)] = \(got), want \(want)")
                    }
                }
            }
        }
    }

    func testPadMatchesReference() throws {
        for file in try VulkanTesting.fixtures(prefix: "pad_") {
            try checkPad(file, split: false, chunkPlanes: nil)
            try checkPad(file, split: true, chunkPlanes: nil)
        }
    }

    func testPadInChannelChunks() throws {
        for file in try VulkanTesting.fixtures(prefix: "pad_") {
            try checkPad(file, split: true, chunkPlanes: 1)
        }
    }

    // MARK: convolution

    private func checkConvolution(_ file: String, chunkBytes: Int?) throws {
        let t = try VulkanTesting.fixture(file)
        let input = t["input"]!, weight = t["weight"]!, expected = t["output"]!
        let source = shape(input)
        let kernel = weight.shape[2], stride = scalar(t, "stride")
        let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: source,
                                    upsample: scalar(t, "upsample") != 0, padding: kernel / 2, split: stride == 2)
        let conv = ExecutionPlan.Convolution(layer: 0, input: pad, destination: .a, outputChannels: weight.shape[0],
                                             kernel: kernel, stride: stride)
        let outShape = conv.outputShape
        XCTAssertEqual([outShape.channels, outShape.height, outShape.width], expected.shape, file)
        let plan = ExecutionPlan(steps: [.pad(pad), .convolution(conv)],
                                 bufferFloats: [.input: source.floatCount, .padded: pad.floatCount, .a: outShape.floatCount],
                                 inputShape: source, output: .a, outputShape: outShape)
        let weights = ConvolutionWeights(outputChannels: weight.shape[0], inputChannels: weight.shape[1], kernel: kernel,
                                         values: weight.values)
        let backend = try VulkanBackend(context: context, weights: [weights])
        if let chunkBytes { backend.maxBindingBytes = chunkBytes }
        let out = try backend.run(plan, inputs: [.input: OpHarness.planar(input.values, source)], normParameters: [])
        VulkanTesting.assertClose(OpHarness.dense(out, outShape), expected.values,
                                  "\(file)\(chunkBytes.map { " chunked \($0)" } ?? "")")
    }

    func testConvolutionMatchesReference() throws {
        for file in try VulkanTesting.fixtures(prefix: "conv_") {
            try checkConvolution(file, chunkBytes: nil)
        }
    }

    /// Small bindings split inputs into chunks of a few channels (accumulated in place) and
    /// outputs into 4-channel blocks.
    func testConvolutionInChannelChunks() throws {
        for file in try VulkanTesting.fixtures(prefix: "conv_") {
            let t = try VulkanTesting.fixture(file)
            let input = t["input"]!
            let up = scalar(t, "upsample") != 0 ? 2 : 1
            let k = t["weight"]!.shape[2]
            let padded = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: shape(input), upsample: up == 2,
                                           padding: k / 2, split: scalar(t, "stride") == 2)
            let output = t["output"]!
            let outPlane = ExecutionPlan.DenseShape(channels: 1, height: output.shape[1], width: output.shape[2]).planeStride
            // Room for 3 padded input planes and at least 4 output planes.
            try checkConvolution(file, chunkBytes: max(3 * 4 * padded.planeStride, 4 * 4 * outPlane))
        }
    }

    // MARK: instance norm

    private func checkNorm(_ file: String, chunkBytes: Int?) throws {
        let t = try VulkanTesting.fixture(file)
        let input = t["input"]!
        let shape = shape(input)
        let channels = shape.channels
        let layer = 1  // not 0, so the table offsets are exercised
        var parameters = [Float](repeating: 0, count: 2 * ExecutionPlan.parametersPerLayer)
        for c in 0..<channels {
            parameters[layer * 64 + c] = t["gamma"]!.values[c]
            parameters[layer * 64 + 32 + c] = t["beta"]!.values[c]
        }
        let backend = try VulkanBackend(context: context, weights: [])
        if let chunkBytes { backend.maxBindingBytes = chunkBytes }
        let cases: [(Activation, Bool, String)] = [(.identity, false, "out_identity"), (.relu, false, "out_relu"),
                                                   (.sigmoid, false, "out_sigmoid"), (.identity, true, "out_identity_residual")]
        for (activation, residual, name) in cases {
            for inPlace in [false, true] {
                let destination: ExecutionPlan.Buffer = inPlace ? .a : .b
                let plan = ExecutionPlan(
                    steps: [.normStatistics(.init(layer: layer, source: .a, shape: shape)),
                            .normApply(.init(layer: layer, source: .a, destination: destination, shape: shape,
                                             activation: activation, residual: residual ? .c : nil))],
                    bufferFloats: [.a: shape.floatCount, .b: shape.floatCount, .c: shape.floatCount],
                    inputShape: shape, output: destination, outputShape: shape)
                let out = try backend.run(plan, inputs: [.a: OpHarness.planar(input.values, shape),
                                                         .c: OpHarness.planar(t["residual"]!.values, shape)],
                                          normParameters: parameters)
                VulkanTesting.assertClose(OpHarness.dense(out, shape), t[name]!.values,
                                          "\(file) \(name) inPlace=\(inPlace) chunk=\(chunkBytes ?? 0)")
            }
        }
    }

    func testNormMatchesReference() throws {
        for file in try VulkanTesting.fixtures(prefix: "norm_") {
            try checkNorm(file, chunkBytes: nil)
        }
    }

    func testNormInChannelChunks() throws {
        for file in try VulkanTesting.fixtures(prefix: "norm_") {
            let t = try VulkanTesting.fixture(file)
            let plane = shape(t["input"]!).planeStride
            try checkNorm(file, chunkBytes: 4 * 3 * plane)
        }
    }

    /// Maps of millions of pixels (lavapipe caps loop iterations per invocation, and fp32 sums
    /// over 4 million values lose digits) against float64 statistics.
    func testNormStatisticsOnLargeMaps() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        for (height, width) in [(1080, 1920), (2048, 2048)] {
            let shape = ExecutionPlan.DenseShape(channels: 1, height: height, width: width)
            let count = height * width
            // Offset values: a large mean relative to the spread is the hard case for variance.
            let x = VulkanTesting.random(count, seed: UInt64(count), range: 3...5)
            var parameters = [Float](repeating: 0, count: ExecutionPlan.parametersPerLayer)
            parameters[0] = 1.5
            parameters[32] = 0.25
            let plan = ExecutionPlan(
                steps: [.normStatistics(.init(layer: 0, source: .a, shape: shape)),
                        .normApply(.init(layer: 0, source: .a, destination: .a, shape: shape, activation: .identity, residual: nil))],
                bufferFloats: [.a: shape.floatCount], inputShape: shape, output: .a, outputShape: shape)
            let out = try backend.run(plan, inputs: [.a: OpHarness.planar(x, shape)], normParameters: parameters)
            let mean = x.reduce(0.0) { $0 + Double($1) } / Double(count)
            let variance = x.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(count)
            let scale = 1.5 / (variance + 1e-5).squareRoot()
            var worst = 0.0
            for i in stride(from: 0, to: count, by: 101) {
                worst = max(worst, abs((Double(x[i]) - mean) * scale + 0.25 - Double(out[i])))
            }
            XCTAssertLessThan(worst, 1e-4, "\(height)x\(width)")
        }
    }
}
