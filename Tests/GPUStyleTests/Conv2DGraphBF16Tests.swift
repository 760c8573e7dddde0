import CKernels
import XCTest
@testable import GPUStyle

/// The graph's GEMV (kind 2) and small-map 1x1 kernel (kind 3) in bf16 (`CKernels/conv2d_graph_bf16.c`)
/// against a reference that rounds the input and the weights to bf16 itself
/// (`Conv2DBF16Tests.bf16`, not the kernel's rounding) and sums in double, within fp32 summation's
/// bound (n 2^-24 of the sum of the products' magnitudes). Odd term counts (an unpaired last
/// term), output channels that fill no block, maps that end in a full, a half and a padded
/// micro-kernel run; on every twin: VDPBF16PS where the CPU has AVX512_BF16, and its emulation.
final class Conv2DGraphBF16Tests: XCTestCase {
    override func tearDown() {
        ConvolutionPrecision.use(.fp32)
        ConvolutionPrecision.emulateBF16(false)
        InstructionSet.limit(to: nil)
    }

    /// Runs kind `kind` of `p` through the bf16 entry points (packing from the fp32 packing, the
    /// input rounded into pairs, every task) and checks it against the reference.
    private func check(_ p: gs_conv2d_params, kind: Int32, input: [Float], weights: [Float], bias: [Float],
                       label: String) {
        var p = p
        let cout = Int(p.out_channels), pixels = Int(p.out_height * p.out_width)
        let terms = kind == 2 ? input.count : Int(p.in_channels)
        var prepared = [Float](repeating: .nan, count: Int(gs_conv2d_prepared_count_kind(&p, kind)))
        gs_conv2d_prepare_kind(&p, kind, weights, &prepared)
        var packed = [UInt32](repeating: 0, count: Int(gs_conv2d_bf16_packed_count(&p, kind)))
        gs_conv2d_bf16_pack(&p, kind, prepared, &packed)
        var pairs = [UInt32](repeating: 0, count: Int(gs_conv2d_bf16_input_count(&p, kind)))
        gs_conv2d_bf16_input(&p, kind, input, &pairs)
        var output = [Float](repeating: .nan, count: cout * pixels)
        let tasks = kind == 2 ? (cout + Int(GS_GEMV_TILE) - 1) / Int(GS_GEMV_TILE) : (cout + Int(GS_CO_BLOCK) - 1) / Int(GS_CO_BLOCK)
        bias.withUnsafeBufferPointer { b in
            p.bias = b.baseAddress
            gs_conv2d_run_bf16(&p, kind, pairs, packed, &output, 0, Int64(tasks))
        }
        let bf16 = Conv2DBF16Tests.bf16
        for co in 0..<cout {
            for q in 0..<pixels {
                var sum = Double(bias[co]), magnitude = abs(Double(bias[co]))
                for k in 0..<terms {
                    let x = kind == 2 ? input[k] : input[k * pixels + q]
                    let product = Double(bf16(weights[co * terms + k])) * Double(bf16(x))
                    sum += product
                    magnitude += abs(product)
                }
                let expected = min(max(sum, 0), 6)  // ReLU6
                let bound = Double(terms + 1) * 0x1p-24 * magnitude + 1e-7
                let got = Double(output[co * pixels + q])
                if !(abs(got - expected) <= bound) {
                    return XCTFail("\(label): output \(co), pixel \(q) is \(got), expected \(expected) within \(bound)")
                }
            }
        }
    }

    func testSmallMapAndGEMVMatchBF16Reference() throws {
        var runs = 0
        try ConvolutionPrecision.forEachBF16Twin("Conv2DGraphBF16Tests") { twin in
            // Kind 3: 1x1 on small maps (49 pixels: 3 full tiles and a half on AVX-512; 15; 1).
            for (cin, cout, height, width) in [(37, 45, 7, 7), (64, 32, 3, 5), (320, 70, 1, 1)] {
                var p = gs_conv2d_params()
                (p.in_channels, p.out_channels) = (Int32(cin), Int32(cout))
                (p.in_height, p.in_width, p.out_height, p.out_width) = (Int32(height), Int32(width), Int32(height), Int32(width))
                (p.kernel_height, p.kernel_width, p.stride_y, p.stride_x) = (1, 1, 1, 1)
                p.groups = 1
                p.activation = 3
                let input = (0..<(cin * height * width)).map { i in Float(i * 7_919 % 997) / 997 - 0.3 }
                let weights = (0..<(cout * cin)).map { i in Float(i * 104_729 % 1_009) / 1_009 - 0.5 }
                let bias = (0..<cout).map { i in Float(i % 7) / 10 - 0.2 }
                check(p, kind: 3, input: input, weights: weights, bias: bias, label: "kind 3 \(cin)->\(cout) \(height)x\(width), \(twin)")
                runs += 1
            }
            // Kind 2: a fully connected layer over 1x1 (1283 terms, odd) and over a 3x2x2 input.
            for (cin, cout, height, width) in [(1_283, 37, 1, 1), (3, 20, 2, 2)] {
                var p = gs_conv2d_params()
                (p.in_channels, p.out_channels) = (Int32(cin), Int32(cout))
                (p.in_height, p.in_width, p.out_height, p.out_width) = (Int32(height), Int32(width), 1, 1)
                (p.kernel_height, p.kernel_width, p.stride_y, p.stride_x) = (Int32(height), Int32(width), 1, 1)
                p.groups = 1
                p.activation = 3
                let n = cin * height * width
                let input = (0..<n).map { i in Float(i * 7_919 % 997) / 997 - 0.3 }
                let weights = (0..<(cout * n)).map { i in Float(i * 104_729 % 1_009) / 1_009 - 0.5 }
                let bias = (0..<cout).map { i in Float(i % 7) / 10 - 0.2 }
                check(p, kind: 2, input: input, weights: weights, bias: bias, label: "kind 2 \(n)->\(cout), \(twin)")
                runs += 1
            }
        }
        XCTAssertGreaterThan(runs, 0)
    }
}
