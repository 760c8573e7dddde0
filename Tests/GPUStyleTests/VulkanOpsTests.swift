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
}
