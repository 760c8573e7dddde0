import XCTest
@testable import GPUStyle

/// GELU fused into the convolutions before it (`GraphLowering.fusingActivations`): the CPU
/// kernels' vector form (range-reduced exp, conv2d_graph_body.inc) and the shader's, against
/// the reference evaluator's exact erf (Double) on the shapes of PP-OCRv6's recogniser (a 1x1
/// 96 -> 192 layer on 6 x 80, the 3x3 stride-2 stem) and on inputs from -12 to 12.
final class GeluTests: GraphOpTestCase {
    func graph(inputChannels: Int, outputChannels: Int, kernel: Int, stride: Int) -> NetworkGraph {
        var generator = SeededRandom(seed: 37)
        let count = outputChannels * inputChannels * kernel * kernel
        let weights = (0..<count).map { _ in (Float(generator.next() >> 40) / Float(1 << 24) * 2 - 1) * 3 / Float(inputChannels * kernel).squareRoot() }
        let bias = (0..<outputChannels).map { Float($0 % 7) - 3 }
        let conv = NetworkGraph.Convolution(weights: 0, bias: 1, outputChannels: outputChannels, kernelHeight: kernel, kernelWidth: kernel,
                                            strideY: stride, strideX: stride, padding: .init(kernel / 2))
        return NetworkGraph(input: 0, output: 2, tensorCount: 3, nodes: [
            .init(name: "conv", operation: .convolution(conv), inputs: [0], output: 1),
            .init(name: "gelu", operation: .activation(.init(.gelu)), inputs: [1], output: 2),
        ], constants: ModelConstants(values: [weights, bias]))
    }

    func testFusedGeluMatchesTheExactErf() throws {
        for (c, o, k, s, h, w) in [(96, 192, 1, 1, 6, 80), (3, 24, 3, 2, 48, 64)] {
            let g = graph(inputChannels: c, outputChannels: o, kernel: k, stride: s)
            XCTAssertEqual(GraphLowering.fusingActivations(g).nodes.count, 1, "GELU is fused into the convolution")
            let shape = NetworkGraph.Shape(channels: c, height: h, width: w)
            let x = (0..<shape.elementCount).map { Float(($0 * 7919) % 2001) / 1000 - 1 }
            let expected = try GraphReference.run(g, input: .init(shape: shape, values: x)).values
            XCTAssertGreaterThan(expected.max()!, 4)
            XCTAssertLessThan(expected.min()!, -0.16)
            let plan = try GraphLowering.lower(g, input: shape)
            try forEachBackend { backend, name in
                let y = try backend.run(plan, inputs: [.input: x], normParameters: [])
                let worst = zip(y, expected).map { abs($0 - $1) / max(1, abs($1)) }.max()!
                XCTAssertLessThan(worst, 2e-5, "\(name) \(c)->\(o) \(k)x\(k)")
            }
        }
    }
}
