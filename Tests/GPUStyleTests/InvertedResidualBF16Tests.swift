import CKernels
import XCTest
@testable import GPUStyle

/// The inverted residual block's bf16 channel-blocked passes (`CKernels/conv2d_graph_bf16.c`)
/// against the torch blocks of InvertedResidualTests (tools/make_conv2d_fixtures.py), within a
/// bound derived from bf16 rounding and recomputed here in double from the fixture's own tensors:
/// each rounding to bf16 (8 significant bits, to nearest) moves a value by at most 2^-9 of it, so
/// a product of a rounded input and a rounded weight by at most 2^-8 (and 2^-18) of its size; the
/// expansion's error passes through ReLU6 (which moves no error up) and the fp32 depthwise sum,
/// the filtered value is rounded once more for the projection. On every twin: VDPBF16PS where the
/// CPU has AVX512_BF16, and its emulation at every supported level.
final class InvertedResidualBF16Tests: XCTestCase {
    override func tearDown() {
        ConvolutionPrecision.use(.fp32)
        ConvolutionPrecision.emulateBF16(false)
        InstructionSet.limit(to: nil)
    }

    /// One product's relative error from its two bf16 roundings: (1 + 2^-9)^2 - 1.
    static let productError: Double = 0x1p-8 + 0x1p-18
    /// fp32 summation (n 2^-24 of the terms' magnitudes) for the sums' lengths here (< 256).
    static let summationError: Double = 0x1p-16

    /// The block in double (expand, ReLU6, depthwise 3x3 padding 1, ReLU6, project [+ input]) and,
    /// per output, the bound above.
    static func reference(_ t: [String: NamedTensor]) -> (output: [Double], bound: [Double]) {
        let x = t["input"]!, out = t["output"]!
        let (cin, h, w) = (x.shape[0], x.shape[1], x.shape[2])
        let (cout, oh, ow) = (out.shape[0], out.shape[1], out.shape[2])
        let dw = t["depthwise_weight"]!.values.map { Double($0) }, db = t["depthwise_bias"]!.values.map { Double($0) }
        let pw = t["project_weight"]!.values.map { Double($0) }, pb = t["project_bias"]!.values.map { Double($0) }
        let mid = db.count, stride = t["stride"].map { Int($0.values[0]) } ?? 1
        let input = x.values.map { Double($0) }
        func relu6(_ v: Double) -> Double { min(max(v, 0), 6) }
        // The expansion and its error bound.
        var e = [Double](repeating: 0, count: mid * h * w), de = e
        let ew = t["expand_weight"]!.values.map { Double($0) }, eb = t["expand_bias"]!.values.map { Double($0) }
        for c in 0..<mid {
            for p in 0..<(h * w) {
                var sum = eb[c], magnitude = abs(eb[c])
                for k in 0..<cin {
                    sum += ew[c * cin + k] * input[k * h * w + p]
                    magnitude += abs(ew[c * cin + k] * input[k * h * w + p])
                }
                e[c * h * w + p] = relu6(sum)
                de[c * h * w + p] = (productError + summationError) * magnitude
            }
        }
        // The depthwise convolution (fp32) and the projection (bf16 again).
        var output = [Double](repeating: 0, count: cout * oh * ow), bound = output
        var d = [Double](repeating: 0, count: mid * oh * ow), dd = d
        for c in 0..<mid {
            for oy in 0..<oh {
                for ox in 0..<ow {
                    var sum = db[c], error = 0.0, magnitude = abs(db[c])
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let y = oy * stride + ky - 1, xx = ox * stride + kx - 1
                            guard y >= 0, y < h, xx >= 0, xx < w else { continue }
                            let weight = dw[c * 9 + ky * 3 + kx]
                            sum += weight * e[c * h * w + y * w + xx]
                            error += abs(weight) * de[c * h * w + y * w + xx]
                            magnitude += abs(weight * e[c * h * w + y * w + xx])
                        }
                    }
                    d[c * oh * ow + oy * ow + ox] = relu6(sum)
                    dd[c * oh * ow + oy * ow + ox] = error + summationError * magnitude
                }
            }
        }
        let residual = x.shape == out.shape && stride == 1
        for o in 0..<cout {
            for q in 0..<(oh * ow) {
                var sum = pb[o], error = 0.0, magnitude = abs(pb[o])
                for c in 0..<mid {
                    let weight = abs(pw[o * mid + c]), value = d[c * oh * ow + q], drift = dd[c * oh * ow + q]
                    sum += pw[o * mid + c] * value
                    // The filtered value's own error, then its rounding (of the drifted value).
                    error += weight * (drift * (1 + productError) + productError * abs(value))
                    magnitude += weight * abs(value)
                }
                if residual { sum += input[o * oh * ow + q] }
                output[o * oh * ow + q] = sum
                bound[o * oh * ow + q] = error + summationError * magnitude + 1e-6
            }
        }
        return (output, bound)
    }

    /// Channel-blocked rows (strips of 1, 2, 3 rows and by cache size) and channel parts (1, 2, 3)
    /// for the fixtures with an expansion; the block without one stays fp32 (bit for bit).
    func testBlockedPassesMatchTorchWithinBF16Bound() throws {
        typealias Tuning = CPUInvertedResidual.Tuning
        func blocked(_ parts: Int) -> Tuning { Tuning(channelParts: parts, blockedPixels: .max, blockedWithoutExpansion: true) }
        func rows(_ strip: Int?) -> Tuning { Tuning(minimumRowsPerThread: 1, stripRows: strip, blockedPixels: 0) }
        let tunings: [(String, Tuning)] = [
            ("blocked rows, 1-row strips", rows(1)), ("blocked rows, 2-row strips", rows(2)),
            ("blocked rows, 3-row strips", rows(3)), ("blocked rows, strips by cache size", rows(nil)),
            ("blocked, 1 part", blocked(1)), ("blocked, 2 parts", blocked(2)), ("blocked, 3 parts", blocked(3)),
        ]
        var checked = 0
        var largestShare = 0.0  // the largest error as a share of its bound
        try ConvolutionPrecision.forEachBF16Twin("InvertedResidualBF16Tests") { twin in
            for name in try InvertedResidualFixtures.names() {
                let t = try Fixtures.tensors(name)
                let plan = try InvertedResidualFixtures.plan(t)
                for (label, tuning) in tunings {
                    func run(_ precision: ConvolutionPrecision) throws -> [Float] {
                        let backend = CPUBackend(weights: [])
                        backend.invertedResidualTuning = tuning
                        ConvolutionPrecision.use(precision)
                        defer { ConvolutionPrecision.use(.bf16) }
                        let got = try InvertedResidualFixtures.run(backend, plan, t)
                        XCTAssertEqual(backend.fusedBlockRuns, 1, "\(name), \(label)")
                        return got
                    }
                    let got = try run(.bf16), fp32 = try run(.fp32)
                    guard t["expand_weight"] != nil else {
                        XCTAssertEqual(got, fp32, "\(name), \(label), \(twin): a block without an expansion stays fp32")
                        continue
                    }
                    XCTAssertNotEqual(got, fp32, "\(name), \(label), \(twin): the bf16 pass did not run")
                    let (expected, bound) = Self.reference(t)
                    for i in expected.indices {
                        let error = abs(Double(got[i]) - expected[i])
                        largestShare = max(largestShare, error / bound[i])
                        if error > bound[i] {
                            XCTFail("\(name), \(label), \(twin): output \(i) is \(got[i]), torch \(expected[i]), bound \(bound[i])")
                            return
                        }
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 0)
        print("InvertedResidualBF16Tests: \(checked) runs, largest error \(largestShare) of its bound")
    }

    /// The packing: kind 3's blocks of 32 output channels as bf16 pairs of input channels, the odd
    /// last channel paired with zero, against gs_bf16_round of each weight.
    func testPackingPairsInputChannels() {
        let (cout, cin) = (37, 5)
        let weights: [Float] = (0..<(cout * cin)).map { i in Float(i * 7_919 % 1_009) / 1_009 - 0.5 + 1e-4 }
        var p = gs_conv2d_params()
        p.in_channels = Int32(cin)
        p.out_channels = Int32(cout)
        for field in [\gs_conv2d_params.in_height, \.in_width, \.out_height, \.out_width, \.kernel_height, \.kernel_width,
                      \.stride_y, \.stride_x, \.groups] {
            p[keyPath: field] = 1
        }
        var prepared = [Float](repeating: .nan, count: Int(gs_conv2d_prepared_count_kind(&p, 3)))
        gs_conv2d_prepare_kind(&p, 3, weights, &prepared)
        var packed = [UInt32](repeating: 0xDEAD_BEEF, count: Int(gs_conv2d_bf16_packed_count(&p, 3)))
        gs_conv2d_bf16_pack(&p, 3, prepared, &packed)
        XCTAssertEqual(packed.count, 2 * 3 * 32)
        let block = Int(GS_CO_BLOCK)
        for b in 0..<2 {
            for k in 0..<3 {
                for c in 0..<block {
                    let word = packed[(b * 3 + k) * block + c], co = b * block + c
                    let lo = Float(bitPattern: word << 16), hi = Float(bitPattern: word & 0xFFFF_0000)
                    func want(_ i: Int) -> Float {
                        co < cout && 2 * k + i < cin ? gs_bf16_round(weights[co * cin + 2 * k + i]) : 0
                    }
                    XCTAssertEqual([lo, hi], [want(0), want(1)], "block \(b), pair \(k), lane \(c)")
                }
            }
        }
    }
}
