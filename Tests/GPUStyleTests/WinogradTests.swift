import XCTest
@testable import GPUStyle

/// Winograd's F(4x4, 3x3) for the style network's 3x3 stride-1 convolutions
/// (`CKernels/winograd.c`): against numpy's convolution on the network's 32 -> 32 layer
/// (tools/make_op_fixtures.py) and against the definition on sizes that are not multiples of the
/// 4x4 tile or of the 64-tile group, with channel counts that fill no weight block; on every twin.
final class WinogradTests: XCTestCase {
    private func backend(winograd: Bool) -> OpHarness.BackendFactory {
        { weights in
            let backend = CPUBackend(weights: weights)
            backend.winogradMinimumMapBytes = winograd ? 0 : nil
            return backend
        }
    }

    func testNetworkLayerMatchesNumpy() throws {
        let fixture = try Fixtures.tensors("ops/conv_res_k3.gpsw")
        let weight = fixture["weight"]!
        let weights = ConvolutionWeights(outputChannels: weight.shape[0], inputChannels: weight.shape[1], kernel: 3,
                                         values: weight.values)
        XCTAssertNotNil(PackedConvolution(weights).winogradPacked, "the 32 -> 32 layer runs Winograd")
        let expected = fixture["output"]!.values
        let scale = expected.map(abs).max() ?? 1
        try InstructionSet.forEachSupported { isa in
            assertClose(try OpHarness.convolution(fixture, backend: backend(winograd: true)), expected,
                        tolerance: 1e-5 * max(1, scale), "\(isa)")
        }
    }

    func testOddSizesMatchTheDefinition() throws {
        let cin = 17, cout = 19
        XCTAssertGreaterThanOrEqual(min(cin, cout), PackedConvolution.winogradMinimumChannels)
        let weightValues = (0..<(cout * cin * 9)).map { Float(($0 * 104_729) % 17) / 17 - 0.5 }
        let weight = NamedTensor(name: "weight", shape: [cout, cin, 3, 3], values: weightValues)
        try InstructionSet.forEachSupported { isa in
            for (height, width) in [(2, 2), (3, 5), (7, 13), (4, 4), (9, 70), (13, 65), (6, 131), (5, 300)] {
                let inputValues = (0..<(cin * height * width)).map { Float(($0 * 7919) % 13) / 13 - 0.5 }
                let fixture: [String: NamedTensor] = [
                    "input": NamedTensor(name: "input", shape: [cin, height, width], values: inputValues),
                    "weight": weight,
                    "stride": NamedTensor(name: "stride", shape: [1], values: [1]),
                    "upsample": NamedTensor(name: "upsample", shape: [1], values: [0]),
                ]
                // The definition, in double: reflection padding of 1, then the 3x3 window.
                func at(_ c: Int, _ y: Int, _ x: Int) -> Double {
                    Double(inputValues[(c * height + ReflectPad.reflect(y, height)) * width + ReflectPad.reflect(x, width)])
                }
                var expected: [Float] = []
                for co in 0..<cout {
                    for y in 0..<height {
                        for x in 0..<width {
                            var sum = 0.0
                            for ci in 0..<cin { for ky in 0..<3 { for kx in 0..<3 {
                                sum += Double(weightValues[((co * cin + ci) * 3 + ky) * 3 + kx]) * at(ci, y + ky - 1, x + kx - 1)
                            } } }
                            expected.append(Float(sum))
                        }
                    }
                }
                assertClose(try OpHarness.convolution(fixture, backend: backend(winograd: true)), expected, tolerance: 1e-4,
                            "\(isa) \(height)x\(width) winograd")
                assertClose(try OpHarness.convolution(fixture, backend: backend(winograd: false)), expected, tolerance: 1e-4,
                            "\(isa) \(height)x\(width) direct")
            }
        }
    }

    /// By default only maps larger than one core's L2 take Winograd: the residual layers at
    /// 1080p (270x480 maps), not at 512x512 (128x128, 2 MB) where the banded direct kernel wins.
    func testOnlyMapsLargerThanL2TakeWinograd() throws {
        let model = try StyleModel.bundled()
        let backend = CPUBackend(weights: model.convolutions)
        func marked(_ height: Int, _ width: Int) throws -> [String] {
            let plan = try model.plan(height: height, width: width)
            return plan.steps.compactMap { step in
                guard backend.kernelNote(for: step, in: plan) != nil, case .fusedConvolution(let f) = step else { return nil }
                return StyleNetwork.layers[f.convolution.layer].name
            }
        }
        XCTAssertEqual(try marked(1080, 1920), StyleNetwork.layers.map(\.name).filter { $0.hasPrefix("res.") })
        XCTAssertEqual(try marked(512, 512), [])
    }
}
