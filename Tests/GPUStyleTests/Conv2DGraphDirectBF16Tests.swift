import CKernels
import XCTest
@testable import GPUStyle

/// The graph's direct 3x3 kernel (kind 5: classify's stem) in bf16
/// (`CKernels/conv2d_graph_direct_bf16_body.inc`) against a reference that rounds the weights to
/// bf16 and splits each input value into its two bf16 parts itself (`Conv2DBF16Tests.bf16`: bf16(x)
/// and bf16(x - bf16(x))) and sums in double, within fp32 summation's bound (n 2^-24 of the sum of
/// the products' magnitudes). Strides 1 and 2, padded and not; output channels that fill no
/// 4-channel tile; rows of one full 64-pixel tile and a part of one, and rows narrower than a
/// vector; on every twin: VDPBF16PS where the CPU has AVX512_BF16, and its emulation.
final class Conv2DGraphDirectBF16Tests: XCTestCase {
    override func tearDown() {
        ConvolutionPrecision.use(.fp32)
        ConvolutionPrecision.emulateBF16(false)
        InstructionSet.limit(to: nil)
    }

    private struct Shape {
        let cin, cout, height, width, stride, pad, activation: Int
    }

    /// Runs `shape` through the bf16 entry points (weights packed from the fp32 packing, every
    /// output row as one task range and split in two) and checks it against the reference.
    private func check(_ shape: Shape, label: String) {
        var p = gs_conv2d_params()
        (p.in_channels, p.out_channels) = (Int32(shape.cin), Int32(shape.cout))
        (p.in_height, p.in_width) = (Int32(shape.height), Int32(shape.width))
        let outHeight = (shape.height + 2 * shape.pad - 3) / shape.stride + 1
        let outWidth = (shape.width + 2 * shape.pad - 3) / shape.stride + 1
        (p.out_height, p.out_width) = (Int32(outHeight), Int32(outWidth))
        (p.kernel_height, p.kernel_width, p.stride_y, p.stride_x) = (3, 3, Int32(shape.stride), Int32(shape.stride))
        (p.pad_top, p.pad_left) = (Int32(shape.pad), Int32(shape.pad))
        p.groups = 1
        p.activation = Int32(shape.activation)
        let kind: Int32 = 5
        XCTAssertEqual(gs_conv2d_kind(&p), kind, label)
        XCTAssertEqual(gs_conv2d_bf16_kind(&p, kind), 1, label)
        XCTAssertEqual(gs_conv2d_tasks(&p), Int64(outHeight), label)

        let (cin, cout) = (shape.cin, shape.cout)
        let plane = shape.height * shape.width, outPlane = outHeight * outWidth
        let input = (0..<(cin * plane)).map { i in Float(i * 7_919 % 997) / 997 - 0.3 }
        let weights = (0..<(cout * cin * 9)).map { i in Float(i * 104_729 % 1_009) / 1_009 - 0.5 }
        let bias = (0..<cout).map { i in Float(i % 7) / 10 - 0.2 }
        var prepared = [Float](repeating: .nan, count: Int(gs_conv2d_prepared_count_kind(&p, kind)))
        gs_conv2d_prepare_kind(&p, kind, weights, &prepared)
        var packed = [UInt32](repeating: 0, count: Int(gs_conv2d_bf16_packed_count(&p, kind)))
        gs_conv2d_bf16_pack(&p, kind, prepared, &packed)
        XCTAssertEqual(gs_conv2d_bf16_input_count(&p, kind), 0, label)
        var output = [Float](repeating: .nan, count: cout * outPlane)
        bias.withUnsafeBufferPointer { b in
            p.bias = b.baseAddress
            let split = Int64(outHeight / 2)
            gs_conv2d_run_bf16(&p, kind, input, nil, packed, &output, 0, split)
            gs_conv2d_run_bf16(&p, kind, input, nil, packed, &output, split, Int64(outHeight))
        }

        let bf16 = Conv2DBF16Tests.bf16
        for co in 0..<cout {
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum = Double(bias[co]), magnitude = abs(Double(bias[co]))
                    for ci in 0..<cin {
                        for ky in 0..<3 {
                            for kx in 0..<3 {
                                let iy = oy * shape.stride - shape.pad + ky, ix = ox * shape.stride - shape.pad + kx
                                guard iy >= 0, iy < shape.height, ix >= 0, ix < shape.width else { continue }
                                let w = Double(bf16(weights[(co * cin + ci) * 9 + ky * 3 + kx]))
                                let x = input[ci * plane + iy * shape.width + ix], high = bf16(x)
                                for part in [Double(high), Double(bf16(x - high))] {
                                    sum += w * part
                                    magnitude += abs(w * part)
                                }
                            }
                        }
                    }
                    let expected = shape.activation == 3 ? min(max(sum, 0), 6) : sum  // ReLU6 or none
                    let bound = Double(2 * 9 * cin + 1) * 0x1p-24 * magnitude + 1e-7
                    let got = Double(output[co * outPlane + oy * outWidth + ox])
                    if !(abs(got - expected) <= bound) {
                        return XCTFail("\(label): output \(co), row \(oy), column \(ox) is \(got), expected \(expected) within \(bound)")
                    }
                }
            }
        }
    }

    func testDirectMatchesBF16Reference() throws {
        let shapes = [
            // The stem's shape on a strip: 3 channels (27 taps), stride 2, 75 outputs a row
            // (a 64-pixel tile and 11), rows wide enough for the stride-2 vector gather.
            Shape(cin: 3, cout: 32, height: 9, width: 150, stride: 2, pad: 1, activation: 3),
            // Stride 1, 5 channels (45 taps), 10 outputs (2 of the last tile), 20-pixel rows.
            Shape(cin: 5, cout: 10, height: 6, width: 20, stride: 1, pad: 1, activation: 0),
            // Unpadded stride 2 and 1 on narrow rows (3 and 5 outputs a row).
            Shape(cin: 2, cout: 7, height: 7, width: 8, stride: 2, pad: 0, activation: 3),
            Shape(cin: 4, cout: 3, height: 4, width: 7, stride: 1, pad: 0, activation: 0),
        ]
        var runs = 0
        try ConvolutionPrecision.forEachBF16Twin("Conv2DGraphDirectBF16Tests") { twin in
            for s in shapes {
                check(s, label: "\(s.cin)->\(s.cout) \(s.height)x\(s.width) stride \(s.stride) pad \(s.pad), \(twin)")
                runs += 1
            }
        }
        XCTAssertGreaterThan(runs, 0)
    }
}
