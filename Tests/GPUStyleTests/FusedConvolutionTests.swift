import XCTest
@testable import GPUStyle

/// Pads fused into the convolutions that read them (`ExecutionPlan.fusingPads`,
/// `gs_conv2d_banded`): which steps fuse, and that a fused step computes its parts' result bit
/// for bit on every twin, for bands of any height, stride 1 and 2, upsampled and 9x9 layers,
/// on sizes that are not multiples of a tile. (The numpy fixtures run fused too: CPUOpTests;
/// tiles of a map, whose pads have windows: TiledStylizerTests.)
final class FusedConvolutionTests: XCTestCase {
    private static let model = Result { try StyleModel.bundled() }

    func testEveryPadFusesWithTheNormalisationNothingElseReads() throws {
        let plan = try Self.model.get().plan(height: 64, width: 96)
        var normalized: [String] = []
        var fusedLayers: [String] = []
        for step in plan.steps {
            if case .pad = step { XCTFail("a pad was left unfused") }
            guard case .fusedConvolution(let fused) = step else { continue }
            fusedLayers.append(StyleNetwork.layers[fused.convolution.layer].name)
            if let apply = fused.normalize { normalized.append(StyleNetwork.layers[apply.layer].name) }
        }
        XCTAssertEqual(fusedLayers, StyleNetwork.layers.map(\.name))
        // Not fused: the maps residual blocks add back later (contract.2, res.k.1, whose applies
        // also add a residual) and the output layer's.
        XCTAssertEqual(normalized, ["contract.0", "contract.1"] + (0..<6).map { "res.\($0).0" } + ["expand.0", "expand.1"])
    }

    func testANormalisedMapReadLaterIsNotFused() {
        typealias Plan = ExecutionPlan
        let shape = Plan.DenseShape(channels: 2, height: 6, width: 7)
        let apply = Plan.InstanceNormApply(layer: 0, source: .a, destination: .a, shape: shape, activation: .relu, residual: nil)
        let pad = Plan.Pad(source: .a, destination: .padded, sourceShape: shape, upsample: false, padding: 1, split: false)
        let conv = Plan.Convolution(layer: 0, input: pad, destination: .b, outputChannels: 2, kernel: 3, stride: 1)
        let later = Plan.InstanceNormApply(layer: 1, source: .b, destination: .b, shape: conv.outputShape, activation: .identity,
                                           residual: .a)
        let sizes: [Plan.Buffer: Int] = [.a: shape.floatCount, .b: shape.floatCount, .padded: pad.floatCount]
        func fused(_ steps: [Plan.Step], output: Plan.Buffer = .b) -> [Plan.Step] {
            Plan(steps: steps, bufferFloats: sizes, inputShape: shape, output: output, outputShape: shape).fusingPads().steps
        }
        func normalizes(_ steps: [Plan.Step]) -> Bool? {
            for step in steps { if case .fusedConvolution(let f) = step { return f.normalize != nil } }
            return nil
        }
        XCTAssertEqual(normalizes(fused([.instanceNormApply(apply), .pad(pad), .convolution(conv)])), true)
        XCTAssertEqual(fused([.instanceNormApply(apply), .pad(pad), .convolution(conv)]).count, 1)
        // The residual add reads the normalised map: the apply stays, the pad still fuses.
        XCTAssertEqual(normalizes(fused([.instanceNormApply(apply), .pad(pad), .convolution(conv), .instanceNormApply(later)])),
                       false)
        // The normalised map is the plan's output.
        XCTAssertEqual(normalizes(fused([.instanceNormApply(apply), .pad(pad), .convolution(conv)], output: .a)), false)
        // A later step reads the padded copy: nothing fuses.
        let again = Plan.Convolution(layer: 0, input: pad, destination: .c, outputChannels: 2, kernel: 3, stride: 1)
        XCTAssertNil(normalizes(fused([.pad(pad), .convolution(conv), .convolution(again)])))
    }

    /// The whole network, fused against its parts, on every twin, with Winograd off so that the
    /// stride-1 3x3 layers run banded too, and bands of 1, 2 and 3 rows and by cache size; bit
    /// for bit with the statistics in their own pass, within rounding with them fused.
    func testFusedStepsComputeTheirPartsBitForBit() throws {
        let model = try Self.model.get()
        let mix = try StyleMix(parsing: "2:1,9:1")
        for (height, width) in [(21, 37), (40, 29), (64, 70)] {
            let plan = try model.plan(height: height, width: width)
            var rng = SeededRandom(seed: UInt64(height * width))
            let input = (0..<plan.bufferFloats[.input]!).map { _ in Float(rng.index(below: 1000)) / 1000 }
            try InstructionSet.forEachSupported { isa in
                let parts = CPUBackend(weights: model.convolutions)
                parts.winogradMinimumMapBytes = nil
                let expected = try parts.run(plan.unfusingPads(), inputs: [.input: input], normParameters: model.normParameters(for: mix))
                for band in [1, 2, 3, nil] {
                    let backend = CPUBackend(weights: model.convolutions)
                    backend.winogradMinimumMapBytes = nil
                    backend.fusedStatistics = false
                    backend.convolutionBandRows = band
                    let actual = try backend.run(plan, inputs: [.input: input], normParameters: model.normParameters(for: mix))
                    XCTAssertEqual(actual, expected, "\(isa) \(width)x\(height) bands of \(band.map(String.init) ?? "cache") rows")
                    backend.fusedStatistics = true
                    assertClose(try backend.run(plan, inputs: [.input: input], normParameters: model.normParameters(for: mix)),
                                expected, tolerance: 2e-5, "\(isa) \(width)x\(height) fused statistics")
                }
            }
        }
    }

    /// The CPU backend allocates no padded copy when every pad runs fused (266 MB at 1080p);
    /// Winograd's layers still pad a whole map.
    func testThePaddedBufferIsOnlyAsLargeAsTheUnfusedPads() throws {
        let model = try Self.model.get()
        let plan = try model.plan(height: 64, width: 96)
        let backend = CPUBackend(weights: model.convolutions)
        backend.winogradMinimumMapBytes = nil
        XCTAssertNil(backend.bufferFloats(for: plan)[.padded])
        backend.winogradMinimumMapBytes = 0
        let residualPad = plan.steps.compactMap { step -> Int? in
            guard case .fusedConvolution(let f) = step, f.convolution.kernel == 3, f.convolution.stride == 1,
                  f.convolution.inputChannels == 32, f.convolution.outputShape.channels == 32 else { return nil }
            return f.pad.floatCount
        }.max()
        XCTAssertNotNil(residualPad)
        XCTAssertEqual(backend.bufferFloats(for: plan)[.padded], residualPad)
        XCTAssertLessThan(residualPad!, plan.bufferFloats[.padded]!)
    }

    /// Statistics, apply (in place), pad and convolution of a small map, fused and as parts, for
    /// every activation (the sigmoid takes the two-pass path), stride 1 and 2, the upsample and
    /// a 9x9 kernel, on odd sizes and every twin.
    func testEveryActivationAndLayoutComputesItsParts() throws {
        typealias Plan = ExecutionPlan
        let cases: [(kernel: Int, stride: Int, upsample: Bool)] = [(3, 1, false), (3, 2, false), (3, 1, true), (9, 1, false)]
        let (cin, cout) = (5, 4)
        try InstructionSet.forEachSupported { isa in
            for (height, width) in [(5, 5), (7, 13), (11, 70)] {
                for (kernel, stride, upsample) in cases where kernel / 2 < (upsample ? 2 : 1) * min(height, width) {
                    for activation in [Activation.identity, .relu, .sigmoid] {
                        let shape = Plan.DenseShape(channels: cin, height: height, width: width)
                        let stats = Plan.InstanceNormStatistics(layer: 0, source: .a, shape: shape)
                        let apply = Plan.InstanceNormApply(layer: 0, source: .a, destination: .a, shape: shape,
                                                           activation: activation, residual: nil)
                        let pad = Plan.Pad(source: .a, destination: .padded, sourceShape: shape, upsample: upsample,
                                           padding: kernel / 2, split: stride == 2)
                        let conv = Plan.Convolution(layer: 0, input: pad, destination: .b, outputChannels: cout,
                                                    kernel: kernel, stride: stride)
                        let plan = Plan(steps: [.instanceNormStatistics(stats), .instanceNormApply(apply), .pad(pad),
                                                .convolution(conv)],
                                        bufferFloats: [.a: shape.floatCount, .padded: pad.floatCount,
                                                       .b: conv.outputShape.floatCount],
                                        inputShape: shape, output: .b, outputShape: conv.outputShape)
                        let fused = plan.fusingPads()
                        XCTAssertEqual(fused.steps.count, 2)
                        var rng = SeededRandom(seed: UInt64(height * 100 + width))
                        let values = (0..<(cout * cin * kernel * kernel)).map { _ in Float(rng.index(below: 1000)) / 500 - 1 }
                        let weights = [ConvolutionWeights(outputChannels: cout, inputChannels: cin, kernel: kernel, values: values)]
                        let input = (0..<shape.floatCount).map { _ in Float(rng.index(below: 1000)) / 100 - 3 }
                        let parameters = OpHarness.parameterTable(gamma: [1.5, -0.7, 2, 0.3, 1], beta: [0.2, 0.1, -0.4, 0, 0.5])
                        let expected = try CPUBackend(weights: weights).run(plan, inputs: [.a: input], normParameters: parameters)
                        for band in [1, 2, nil] {
                            let backend = CPUBackend(weights: weights)
                            backend.fusedStatistics = false
                            backend.convolutionBandRows = band
                            XCTAssertEqual(try backend.run(fused, inputs: [.a: input], normParameters: parameters), expected,
                                           "\(isa) \(width)x\(height) k\(kernel)/\(stride) up \(upsample) \(activation) band \(band ?? 0)")
                        }
                    }
                }
            }
        }
    }

    /// The statistics the convolution takes as it stores its tiles (`conv2d_moments_merge_`)
    /// against the statistics pass, on maps whose mean is far larger than their spread (where
    /// E[x²] - E[x]² would lose the variance), with partial tiles, on every twin.
    func testFusedStatisticsMatchTheirOwnPass() throws {
        typealias Plan = ExecutionPlan
        let (cin, cout) = (3, 7)
        try InstructionSet.forEachSupported { isa in
            for (height, width, offset) in [(9, 70, Float(0)), (13, 131, 1000), (40, 64, -300)] {
                let shape = Plan.DenseShape(channels: cin, height: height, width: width)
                let pad = Plan.Pad(source: .a, destination: .padded, sourceShape: shape, upsample: false, padding: 1, split: false)
                let conv = Plan.Convolution(layer: 0, input: pad, destination: .b, outputChannels: cout, kernel: 3, stride: 1)
                let stats = Plan.InstanceNormStatistics(layer: 0, source: .b, shape: conv.outputShape)
                let apply = Plan.InstanceNormApply(layer: 0, source: .b, destination: .b, shape: conv.outputShape,
                                                   activation: .identity, residual: nil)
                let plan = Plan(steps: [.pad(pad), .convolution(conv), .instanceNormStatistics(stats), .instanceNormApply(apply)],
                                bufferFloats: [.a: shape.floatCount, .padded: pad.floatCount, .b: conv.outputShape.floatCount],
                                inputShape: shape, output: .b, outputShape: conv.outputShape)
                let fused = plan.fusingPads()
                guard case .fusedConvolution(let step) = fused.steps.first else { return XCTFail("not fused") }
                XCTAssertNotNil(step.statistics)
                var rng = SeededRandom(seed: UInt64(height * 1000 + width))
                let values = (0..<(cout * cin * 9)).map { _ in Float(rng.index(below: 1000)) / 1000 }
                let weights = [ConvolutionWeights(outputChannels: cout, inputChannels: cin, kernel: 3, values: values)]
                let input = (0..<shape.floatCount).map { _ in offset + Float(rng.index(below: 1000)) / 1000 }
                let parameters = OpHarness.parameterTable(gamma: [Float](repeating: 1, count: cout),
                                                          beta: [Float](repeating: 0, count: cout))
                let separate = try CPUBackend(weights: weights).run(plan, inputs: [.a: input], normParameters: parameters)
                let actual = try CPUBackend(weights: weights).run(fused, inputs: [.a: input], normParameters: parameters)
                // The reference: the convolution's own output, normalised in double.
                let raw = try CPUBackend(weights: weights).run(
                    Plan(steps: Array(plan.steps.prefix(2)), bufferFloats: plan.bufferFloats, inputShape: shape, output: .b,
                         outputShape: conv.outputShape), inputs: [.a: input], normParameters: parameters)
                let out = conv.outputShape, n = out.height * out.width
                var exact = [Double](repeating: 0, count: raw.count)
                for c in 0..<cout {
                    let plane = raw[(c * out.planeStride)..<(c * out.planeStride + n)].map(Double.init)
                    let mean = plane.reduce(0, +) / Double(n)
                    let variance = plane.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n)
                    for i in 0..<n { exact[c * out.planeStride + i] = (plane[i] - mean) / (variance + 1e-5).squareRoot() }
                }
                func worst(_ values: [Float]) -> Double {
                    (0..<cout).flatMap { c in (0..<n).map { abs(Double(values[c * out.planeStride + $0]) - exact[c * out.planeStride + $0]) } }.max()!
                }
                // As accurate as the statistics pass (whose apply rounds x * scale + shift in float:
                // with a mean 10^4 times the spread that alone costs 1e-3).
                XCTAssertLessThanOrEqual(worst(actual), 1.5 * worst(separate) + 1e-5,
                                         "\(isa) \(width)x\(height) offset \(offset): fused \(worst(actual)), pass \(worst(separate))")
            }
        }
    }
}
