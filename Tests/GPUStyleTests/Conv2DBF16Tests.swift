import XCTest
@testable import GPUStyle

/// The style convolutions in bf16 (`CKernels/conv2d_bf16.c`): the direct kernel against a
/// reference that rounds inputs and weights to bf16 itself (its own rounding, not the kernel's)
/// and sums in double, within fp32 summation's bound. On every twin: VDPBF16PS where the CPU has
/// AVX512_BF16 (else said, and skipped), and its emulation at every supported level (so a CPU
/// without it still checks the arithmetic).
final class Conv2DBF16Tests: XCTestCase {
    override func tearDown() {
        ConvolutionPrecision.use(.fp32)
        ConvolutionPrecision.emulateBF16(false)
        InstructionSet.limit(to: nil)
    }

    /// x rounded to the nearest bf16, ties to even (finite x).
    static func bf16(_ x: Float) -> Float {
        let bits = x.bitPattern
        let rounded = bits &+ 0x7FFF &+ ((bits >> 16) & 1)
        return Float(bitPattern: rounded & 0xFFFF_0000)
    }

    private func backend(winograd: Bool) -> OpHarness.BackendFactory {
        { weights in
            let backend = CPUBackend(weights: weights)
            backend.winogradMinimumMapBytes = winograd ? 0 : nil
            return backend
        }
    }

    func testHardwareTwinIsThere() throws {
        guard ConvolutionPrecision.bf16Supported else {
            throw XCTSkip("this CPU has no AVX512_BF16 (VDPBF16PS): the bf16 kernels run emulated only")
        }
        InstructionSet.limit(to: nil)
        XCTAssertTrue(ConvolutionPrecision.bf16InHardware)
        InstructionSet.limit(to: .avx2)
        XCTAssertFalse(ConvolutionPrecision.bf16InHardware, "VDPBF16PS is an AVX-512 instruction")
    }

    /// Direct kernel (unfused from a padded map and fused band by band), strides 1 and 2, 3x3 and
    /// 9x9, odd channel counts (an unpaired last channel), sizes that fill no tile.
    func testDirectMatchesBF16Reference() throws {
        for (cin, cout, kernel, stride, height, width) in [(3, 32, 9, 1, 11, 70), (17, 19, 3, 2, 9, 37), (32, 8, 3, 1, 6, 131),
                                                           (4, 3, 9, 1, 13, 20)] {
            let weights = (0..<(cout * cin * kernel * kernel)).map { Float(($0 * 104_729) % 1_009) / 1_009 - 0.5 }
            let input = (0..<(cin * height * width)).map { Float(($0 * 7_919) % 997) / 997 }
            let fixture: [String: NamedTensor] = [
                "input": NamedTensor(name: "input", shape: [cin, height, width], values: input),
                "weight": NamedTensor(name: "weight", shape: [cout, cin, kernel, kernel], values: weights),
                "stride": NamedTensor(name: "stride", shape: [1], values: [Float(stride)]),
                "upsample": NamedTensor(name: "upsample", shape: [1], values: [0]),
            ]
            // The reference: bf16 inputs and weights, products summed in double; and the bound of
            // fp32 summation of n terms (n 2^-24 times the sum of the products' magnitudes).
            let pad = kernel / 2
            let outH = (height + 2 * pad - kernel) / stride + 1, outW = (width + 2 * pad - kernel) / stride + 1
            var expected: [Float] = [], bound: [Float] = [], exact: [Float] = []
            let terms = Float(cin * kernel * kernel)
            for co in 0..<cout {
                for y in 0..<outH {
                    for x in 0..<outW {
                        var sum = 0.0, magnitude = 0.0, unrounded = 0.0
                        for ci in 0..<cin { for ky in 0..<kernel { for kx in 0..<kernel {
                            let iy = ReflectPad.reflect(y * stride + ky - pad, height)
                            let ix = ReflectPad.reflect(x * stride + kx - pad, width)
                            let v = input[(ci * height + iy) * width + ix], w = weights[((co * cin + ci) * kernel + ky) * kernel + kx]
                            let product = Double(Self.bf16(v)) * Double(Self.bf16(w))
                            sum += product
                            magnitude += abs(product)
                            unrounded += Double(v) * Double(w)
                        } } }
                        expected.append(Float(sum))
                        bound.append(Float(magnitude) * terms * 0x1p-24 + 1e-7)
                        exact.append(Float(unrounded))
                    }
                }
            }
            let label = "\(cin)->\(cout) \(kernel)x\(kernel)/\(stride) \(height)x\(width)"
            try ConvolutionPrecision.forEachBF16Twin("Conv2DBF16Tests") { twin in
                for fused in [false, true] {
                    let got = try OpHarness.convolution(fixture, backend: backend(winograd: false), fused: fused)
                    XCTAssertEqual(got.count, expected.count)
                    let worst = zip(got, zip(expected, bound)).map { abs($0 - $1.0) / $1.1 }.max() ?? 0
                    XCTAssertLessThanOrEqual(worst, 1, "\(label) \(twin) fused \(fused): error / bound")
                    // And bf16 did run: the result is not fp32's.
                    XCTAssertGreaterThan(zip(got, exact).map { abs($0 - $1) }.max() ?? 0, 1e-4, "\(label) \(twin)")
                }
            }
        }
    }

    /// Winograd layers stay fp32 under bf16 (a bf16 Winograd quadrupled the end-to-end error):
    /// the same values as without it, bit for bit.
    func testWinogradStaysFP32() throws {
        let fixture = try Fixtures.tensors("ops/conv_res_k3.gpsw")
        let fp32 = try OpHarness.convolution(fixture, backend: backend(winograd: true))
        ConvolutionPrecision.use(.bf16)
        XCTAssertEqual(try OpHarness.convolution(fixture, backend: backend(winograd: true)), fp32)
        XCTAssertNotEqual(try OpHarness.convolution(fixture, backend: backend(winograd: false)), fp32, "the direct kernel is bf16")
    }
}
