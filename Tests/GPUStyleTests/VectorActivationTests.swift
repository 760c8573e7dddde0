import XCTest
@testable import GPUStyle

/// GELU and sigmoid fused into the CPU convolutions' epilogues (GS_VGELU and GS_VEXP: vectorised
/// with their own exp) on
/// every path that applies it: the GEMM micro-kernel (whole and partial tiles), the depthwise
/// planes and the small-map kernel (channel blocks of 16; the fused inverted residual blocks use
/// the same epilogues: TextModelParityTests), on every instruction set, against GELU in double precision and against the `activation`
/// step (the scalar formula), over values from -60 to 60 (exp(-x^2 / 2) underflows beyond 13.2)
/// and zeros, tiny and huge ones. (A NaN input would reach every output of its pixel through
/// the zero weights.)
final class VectorActivationTests: XCTestCase {
    static let gelu = NetworkGraph.ActivationFunction(.gelu)

    /// -60...60 in uneven steps after zeros, tiny and huge values.
    static func values(_ count: Int) -> [Float] {
        let specials: [Float] = [0, -0, 1e-30, -1e-30, 1e30, -1e30, 13.2, -13.2, 14, -14, 3.64236]
        return (0..<count).map { i in
            i < specials.count ? specials[i] : -60 + 120 * Float((i * 7919) % count) / Float(count)
        }
    }

    static func reference(_ x: Float) -> Double { 0.5 * Double(x) * (1 + erf(Double(x) / 2.0.squareRoot())) }

    /// Within 1e-6 + 1e-6 |x| of GELU (the erf approximation is good to 1.5e-7).
    func check(_ output: [Float], _ input: [Float], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(output.count, input.count, file: file, line: line)
        for (y, x) in zip(output, input) {
            let error = abs(Double(y) - Self.reference(x))
            XCTAssertLessThanOrEqual(error, 1e-6 * (1 + abs(Double(x))), "\(what): GELU(\(x)) = \(y)", file: file, line: line)
            if error > 1e-6 * (1 + abs(Double(x))) { return }
        }
    }

    /// The step's output for `input` in a pool of its own on the CPU path.
    func run(_ step: (ExecutionPlan.Region, ExecutionPlan.Region) -> ExecutionPlan.Step, input: [Float],
             inShape: NetworkGraph.Shape, outShape: NetworkGraph.Shape, constants: [[Float]]) throws -> [Float] {
        var layout = PoolLayout()
        let inRegion = layout.place(inShape, input), outRegion = layout.place(outShape)
        let pool = try GraphOps.run([step(inRegion, outRegion)], layout, constants: ModelConstants(values: constants),
                                    on: CPUBackend(weights: []))
        return GraphOps.read(pool, outRegion)
    }

    /// A 1x1 convolution that copies its channels (weights the identity, no bias) with GELU (or
    /// `activation`).
    func pointwise(channels: Int, inChannels: Int, height: Int, width: Int,
                   activation: NetworkGraph.ActivationFunction = gelu) throws -> (out: [Float], expected: [Float]) {
        let inShape = NetworkGraph.Shape(channels: inChannels, height: height, width: width)
        let outShape = NetworkGraph.Shape(channels: channels, height: height, width: width)
        let x = Self.values(inShape.elementCount)
        var weights = [Float](repeating: 0, count: channels * inChannels)
        for o in 0..<channels { weights[o * inChannels + o] = 1 }
        let out = try run({ .conv2d(.init(input: $0, output: $1, weights: 0, bias: nil, kernelHeight: 1, kernelWidth: 1,
                                          strideY: 1, strideX: 1, padding: .zero, groups: 1, activation: activation)) },
                          input: x, inShape: inShape, outShape: outShape, constants: [weights])
        return (out, Array(x.prefix(outShape.elementCount)))
    }

    func testPointwiseGEMMTilesAndSmallMaps() throws {
        try InstructionSet.forEachSupported { isa in
            // 20x20: whole 32-pixel tiles; 19x7: a partial last tile; 7x7 with 256 inputs: the
            // small-map kernel (kind 3).
            for (channels, inChannels, height, width) in [(16, 16, 20, 20), (11, 11, 19, 7), (40, 256, 7, 7)] {
                let (out, x) = try pointwise(channels: channels, inChannels: inChannels, height: height, width: width)
                check(out, x, "\(isa) 1x1 \(inChannels)->\(channels) at \(height)x\(width)")
            }
        }
    }

    func testDepthwise() throws {
        try InstructionSet.forEachSupported { isa in
            let shape = NetworkGraph.Shape(channels: 16, height: 13, width: 11)
            let x = Self.values(shape.elementCount)
            var weights = [Float](repeating: 0, count: 16 * 9)
            for c in 0..<16 { weights[c * 9 + 4] = 1 }  // the centre tap
            let out = try run({ .conv2d(.init(input: $0, output: $1, weights: 0, bias: nil, kernelHeight: 3, kernelWidth: 3,
                                              strideY: 1, strideX: 1, padding: .init(1), groups: 16, activation: Self.gelu)) },
                              input: x, inShape: shape, outShape: shape, constants: [weights])
            check(out, x, "\(isa) depthwise 3x3")
        }
    }

    /// The vectorised epilogue against the `activation` step's scalar formula, on the text
    /// networks' own kind of layer (a 1x1 expansion with GELU at 136x240 would take minutes
    /// in double precision: 32->64 at 24x40 here).
    func testMatchesTheScalarActivationStep() throws {
        try InstructionSet.forEachSupported { isa in
            let (fused, x) = try pointwise(channels: 32, inChannels: 32, height: 24, width: 40)
            let shape = NetworkGraph.Shape(channels: 32, height: 24, width: 40)
            let scalar = try run({ .activation(.init(input: $0, output: $1, function: Self.gelu)) },
                                 input: x, inShape: shape, outShape: shape, constants: [])
            for (i, (a, b)) in zip(fused, scalar).enumerated() {
                XCTAssertLessThanOrEqual(abs(a - b), 1e-6 * (1 + abs(x[i])), "\(isa): GELU(\(x[i])) fused \(a), scalar \(b)")
            }
        }
    }

    /// Sigmoid (the text detector's last layer) within 2e-7 of 1 / (1 + e^-x) on every path.
    func testSigmoid() throws {
        try InstructionSet.forEachSupported { isa in
            for (channels, inChannels, height, width) in [(16, 16, 20, 20), (11, 11, 19, 7), (40, 256, 7, 7)] {
                let (out, x) = try pointwise(channels: channels, inChannels: inChannels, height: height, width: width,
                                             activation: .init(.sigmoid))
                for (y, v) in zip(out, x) {
                    let expected = 1 / (1 + exp(-Double(v)))
                    XCTAssertLessThanOrEqual(abs(Double(y) - expected), 2e-7, "\(isa) 1x1 \(inChannels)->\(channels): sigmoid(\(v)) = \(y)")
                }
            }
        }
    }
}
