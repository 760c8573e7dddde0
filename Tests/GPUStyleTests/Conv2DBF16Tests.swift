import XCTest
@testable import GPUStyle

/// The style convolutions in bf16 (`CKernels/conv2d_bf16.c`, `gs_winograd_run_bf16`): the direct
/// kernel against a reference that rounds inputs and weights to bf16 itself (its own rounding,
/// not the kernel's) and sums in double, within fp32 summation's bound; Winograd in bf16 against
/// the exact convolution within a bound derived from rounding its transformed tiles and weights to
/// bf16. On every twin: VDPBF16PS where the CPU has AVX512_BF16 (else said, and skipped), and its
/// emulation at every supported level (so a CPU without it still checks the arithmetic).
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

    /// Runs `body` for each way bf16 runs here: the hardware twin (when the CPU has it) and the
    /// emulation at each supported level, with the label.
    private func forEachBF16Twin(_ body: (String) throws -> Void) throws {
        ConvolutionPrecision.use(.bf16)
        if ConvolutionPrecision.bf16Supported {
            InstructionSet.limit(to: .avx512)
            XCTAssertTrue(ConvolutionPrecision.bf16InHardware)
            try body("VDPBF16PS")
        } else {
            print("Conv2DBF16Tests: this CPU has no AVX512_BF16; only the emulation is checked")
        }
        ConvolutionPrecision.emulateBF16(true)
        try InstructionSet.forEachSupported { isa in
            XCTAssertFalse(ConvolutionPrecision.bf16InHardware)
            try body("emulated, \(isa)")
        }
        ConvolutionPrecision.emulateBF16(false)
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
            try forEachBF16Twin { twin in
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

    /// Winograd in bf16 against the exact convolution: with U = G g G^T and V = B^T d B rounded to
    /// bf16 (each within 2^-9 relative), each product is within 2^-8 (1 + 2^-10) of |U| |V|, and
    /// an output is A^T M A's combination of the 36 sums: its error is within
    /// 2^-8 (1 + 2^-10) sum over xi of |a_xi| sum over ci of |U| |V|, plus fp32's (1e-5 of it).
    func testWinogradWithinBF16Bound() throws {
        let cin = 17, cout = 19
        let gMatrix: [[Double]] = [[1.0 / 4, 0, 0], [-1.0 / 6, -1.0 / 6, -1.0 / 6], [-1.0 / 6, 1.0 / 6, -1.0 / 6],
                                   [1.0 / 24, 1.0 / 12, 1.0 / 6], [1.0 / 24, -1.0 / 12, 1.0 / 6], [0, 0, 1]]
        let bt: [[Double]] = [[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                              [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]]
        let at: [[Double]] = [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]]
        let weights = (0..<(cout * cin * 9)).map { Float(($0 * 104_729) % 1_009) / 1_009 - 0.5 }
        // U[co][ci][6][6], |U| only is needed.
        var u = [Double](repeating: 0, count: cout * cin * 36)
        for co in 0..<cout { for ci in 0..<cin {
            let g = (0..<9).map { Double(weights[(co * cin + ci) * 9 + $0]) }
            for i in 0..<6 { for j in 0..<6 {
                var s = 0.0
                for a in 0..<3 { for b in 0..<3 { s += gMatrix[i][a] * g[a * 3 + b] * gMatrix[j][b] } }
                u[((co * cin + ci) * 6 + i) * 6 + j] = s
            } }
        } }
        for (height, width) in [(9, 70), (13, 65), (6, 131)] {
            let input = (0..<(cin * height * width)).map { Float(($0 * 7_919) % 997) / 997 }
            let fixture: [String: NamedTensor] = [
                "input": NamedTensor(name: "input", shape: [cin, height, width], values: input),
                "weight": NamedTensor(name: "weight", shape: [cout, cin, 3, 3], values: weights),
                "stride": NamedTensor(name: "stride", shape: [1], values: [1]),
                "upsample": NamedTensor(name: "upsample", shape: [1], values: [0]),
            ]
            // The padded map as the kernel sees it: reflection of 1, zero past its end.
            let ph = height + 2, pw = width + 2
            func padded(_ c: Int, _ y: Int, _ x: Int) -> Double {
                guard y < ph, x < pw else { return 0 }
                return Double(input[(c * height + ReflectPad.reflect(y - 1, height)) * width + ReflectPad.reflect(x - 1, width)])
            }
            var exact = [Double](repeating: 0, count: cout * height * width)
            var bound = [Double](repeating: 0, count: cout * height * width)
            for ty in 0..<((height + 3) / 4) { for tx in 0..<((width + 3) / 4) {
                // |V| [ci][6][6] of this tile.
                var v = [Double](repeating: 0, count: cin * 36)
                for ci in 0..<cin {
                    for i in 0..<6 { for j in 0..<6 {
                        var s = 0.0
                        for a in 0..<6 { for b in 0..<6 { s += bt[i][a] * padded(ci, 4 * ty + a, 4 * tx + b) * bt[j][b] } }
                        v[(ci * 6 + i) * 6 + j] = abs(s)
                    } }
                }
                for co in 0..<cout {
                    var m = [Double](repeating: 0, count: 36)  // sum over ci of |U| |V|
                    for ci in 0..<cin { for xi in 0..<36 { m[xi] += abs(u[(co * cin + ci) * 36 + xi]) * v[ci * 36 + xi] } }
                    for i in 0..<4 { for j in 0..<4 {
                        let y = 4 * ty + i, x = 4 * tx + j
                        guard y < height, x < width else { continue }
                        var b = 0.0
                        for r in 0..<6 { for c in 0..<6 { b += abs(at[i][r] * at[j][c]) * m[r * 6 + c] } }
                        var sum = 0.0
                        for ci in 0..<cin { for ky in 0..<3 { for kx in 0..<3 {
                            sum += Double(weights[((co * cin + ci) * 3 + ky) * 3 + kx]) * padded(ci, y + ky, x + kx)
                        } } }
                        exact[(co * height + y) * width + x] = sum
                        bound[(co * height + y) * width + x] = b * (0x1p-8 * (1 + 0x1p-10) + 1e-5) + 1e-4
                    } }
                }
            } }
            try forEachBF16Twin { twin in
                let got = try OpHarness.convolution(fixture, backend: backend(winograd: true))
                XCTAssertEqual(got.count, exact.count)
                let ratios = zip(got, zip(exact, bound)).map { abs(Double($0) - $1.0) / $1.1 }
                XCTAssertLessThanOrEqual(ratios.max() ?? 0, 1, "\(height)x\(width) \(twin): error / bound")
                XCTAssertGreaterThan(zip(got, exact).map { abs(Double($0) - $1) }.max() ?? 0, 1e-4, "bf16 ran (\(twin))")
            }
        }
    }
}
