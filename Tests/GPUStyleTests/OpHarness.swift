import Foundation
import XCTest
@testable import GPUStyle

extension InstructionSet {
    /// Runs `body` once per instruction set this CPU has (AVX-512, AVX2+FMA, portable), with the
    /// kernels capped to it, so a machine with AVX-512 also tests the paths others take; the cap
    /// is lifted afterwards.
    static func forEachSupported(_ body: (InstructionSet) throws -> Void) rethrows {
        defer { InstructionSet.limit(to: nil) }
        for isa in InstructionSet.allCases where isa <= InstructionSet.supported {
            InstructionSet.limit(to: isa)
            try body(isa)
        }
    }
}

extension ConvolutionPrecision {
    /// Runs `body` under `.bf16` for each way bf16 runs here: the hardware twin (when the CPU has
    /// AVX512_BF16; else said by `caller`) and the emulation at each supported level, with the
    /// twin's label. The precision and the emulation are left as they were found off; the caller
    /// resets the instruction-set cap.
    static func forEachBF16Twin(_ caller: String, _ body: (String) throws -> Void) throws {
        use(.bf16)
        defer {
            use(.fp32)
            emulateBF16(false)
        }
        if bf16Supported {
            InstructionSet.limit(to: .avx512)
            XCTAssertTrue(bf16InHardware)
            try body("VDPBF16PS")
        } else {
            print("\(caller): this CPU has no AVX512_BF16; only the emulation is checked")
        }
        emulateBF16(true)
        try InstructionSet.forEachSupported { isa in
            XCTAssertFalse(bf16InHardware)
            try body("emulated, \(isa)")
        }
    }
}

/// Test fixtures (made by the scripts in tools/, with numpy and onnxruntime).
enum Fixtures {
    static var root: URL { Bundle.module.url(forResource: "Fixtures", withExtension: nil)! }

    static func tensors(_ relativePath: String) throws -> [String: NamedTensor] {
        try TensorFile.parse(Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    static func names(in folder: String, prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gpsw") }
            .sorted()
            .map { "\(folder)/\($0)" }
    }
}

/// Runs single ops through any backend by building one-step plans, so the same fixture
/// checks the CPU kernels and the GLSL kernels.
enum OpHarness {
    /// The fastest of `runs` timed calls of `body`, in seconds (for the opt-in timing tests).
    static func fastestSeconds(of runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            let start = MonotonicClock.seconds()
            try body()
            best = min(best, MonotonicClock.seconds() - start)
        }
        return best
    }

    typealias BackendFactory = ([ConvolutionWeights]) throws -> NetworkBackend

    /// Dense [C][H][W] values into a plan buffer's channel-plane layout.
    static func planar(_ values: [Float], _ shape: ExecutionPlan.DenseShape) -> [Float] {
        var out = [Float](repeating: 0, count: shape.floatCount)
        let plane = shape.height * shape.width
        for c in 0..<shape.channels {
            for i in 0..<plane { out[c * shape.planeStride + i] = values[c * plane + i] }
        }
        return out
    }

    static func dense(_ values: [Float], _ shape: ExecutionPlan.DenseShape) -> [Float] {
        let plane = shape.height * shape.width
        return (0..<shape.channels).flatMap { c in values[(c * shape.planeStride)..<(c * shape.planeStride + plane)] }
    }

    static func shape(_ tensor: NamedTensor) -> ExecutionPlan.DenseShape {
        ExecutionPlan.DenseShape(channels: tensor.shape[0], height: tensor.shape[1], width: tensor.shape[2])
    }

    /// Pad + convolution as the network runs them; returns the dense output.
    /// Pad then convolution; `fused`: as one `FusedConvolution` step (`fusingPads`).
    static func convolution(_ fixture: [String: NamedTensor], backend makeBackend: BackendFactory,
                            fused: Bool = false) throws -> [Float] {
        let input = fixture["input"]!, weight = fixture["weight"]!
        let stride = Int(fixture["stride"]!.values[0]), upsample = fixture["upsample"]!.values[0] != 0
        let kernel = weight.shape[2]
        let weights = ConvolutionWeights(outputChannels: weight.shape[0], inputChannels: weight.shape[1], kernel: kernel,
                                         values: weight.values)
        let inShape = shape(input)
        let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: inShape, upsample: upsample,
                                    padding: kernel / 2, split: stride == 2)
        let conv = ExecutionPlan.Convolution(layer: 0, input: pad, destination: .a, outputChannels: weight.shape[0],
                                             kernel: kernel, stride: stride)
        let unfused = ExecutionPlan(steps: [.pad(pad), .convolution(conv)],
                                    bufferFloats: [.input: inShape.floatCount, .padded: pad.floatCount, .a: conv.outputShape.floatCount],
                                    inputShape: inShape, output: .a, outputShape: conv.outputShape)
        let plan = fused ? unfused.fusingPads() : unfused
        if fused { precondition(plan.steps.count == 1, "the pad was not fused") }
        let backend = try makeBackend([weights])
        let out = try backend.run(plan, inputs: [.input: planar(input.values, inShape)], normParameters: parameterTable())
        return dense(out, conv.outputShape)
    }

    /// Instance-norm statistics + apply with the given activation (and optional residual).
    static func norm(_ fixture: [String: NamedTensor], activation: Activation, residual: Bool,
                     backend makeBackend: BackendFactory) throws -> [Float] {
        let input = fixture["input"]!
        let s = shape(input)
        let stats = ExecutionPlan.InstanceNormStatistics(layer: 0, source: .a, shape: s)
        let apply = ExecutionPlan.InstanceNormApply(layer: 0, source: .a, destination: .c, shape: s, activation: activation,
                                            residual: residual ? .b : nil)
        let plan = ExecutionPlan(steps: [.instanceNormStatistics(stats), .instanceNormApply(apply)],
                                 bufferFloats: [.a: s.floatCount, .b: s.floatCount, .c: s.floatCount],
                                 inputShape: s, output: .c, outputShape: s)
        let backend = try makeBackend([])
        let out = try backend.run(plan, inputs: [.a: planar(input.values, s), .b: planar(fixture["residual"]!.values, s)],
                                  normParameters: parameterTable(gamma: fixture["gamma"]!.values, beta: fixture["beta"]!.values))
        return dense(out, s)
    }

    /// The pad step alone, returned as a dense, unsplit [C][Hp][Wp] array.
    static func pad(_ fixture: [String: NamedTensor], split: Bool, backend makeBackend: BackendFactory) throws -> [Float] {
        let input = fixture["input"]!
        let s = shape(input)
        let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: s,
                                    upsample: fixture["upsample"]!.values[0] != 0,
                                    padding: Int(fixture["padding"]!.values[0]), split: split)
        let plan = ExecutionPlan(steps: [.pad(pad)], bufferFloats: [.input: s.floatCount, .padded: pad.floatCount],
                                 inputShape: s, output: .padded, outputShape: s)
        let backend = try makeBackend([])
        let out = try backend.run(plan, inputs: [.input: planar(input.values, s)], normParameters: parameterTable())
        var result: [Float] = []
        for c in 0..<s.channels {
            for y in 0..<pad.paddedHeight {
                for x in 0..<pad.paddedWidth {
                    let stored = split ? (x % 2 == 0 ? x / 2 : pad.oddColumnsStart + x / 2) : x
                    result.append(out[c * pad.planeStride + y * pad.rowStride + stored])
                }
            }
        }
        return result
    }

    /// The whole network on a backend for a multiple-of-4 size; input and output dense [3][H][W].
    static func runNetwork(_ backend: NetworkBackend, _ input: [Float], height: Int, width: Int, mix: StyleMix,
                           model: StyleModel) throws -> [Float] {
        let plan = try model.plan(height: height, width: width)
        let output = try backend.run(plan, inputs: [.input: planar(input, plan.inputShape)],
                                     normParameters: model.normParameters(for: mix))
        return dense(output, plan.outputShape)
    }

    static func parameterTable(gamma: [Float] = [], beta: [Float] = []) -> [Float] {
        var table = [Float](repeating: 0, count: StyleNetwork.layers.count * ExecutionPlan.parametersPerLayer)
        for (c, g) in gamma.enumerated() { table[c] = g }
        for (c, b) in beta.enumerated() { table[StyleNetwork.maxChannels + c] = b }
        return table
    }
}

/// Largest absolute difference, with a readable failure message.
func assertClose(_ actual: [Float], _ expected: [Float], tolerance: Float, _ what: String,
                 file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.count, expected.count, "\(what): element count", file: file, line: line)
    var worst: Float = 0, at = 0
    for (i, (a, e)) in zip(actual, expected).enumerated() {
        let d = abs(a - e)
        if !(d <= worst) { worst = d; at = i }  // also catches NaN
    }
    XCTAssert(worst <= tolerance, "\(what): max abs diff \(worst) at \(at) (tolerance \(tolerance))", file: file, line: line)
}
