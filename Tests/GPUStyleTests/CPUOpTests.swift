import XCTest
@testable import GPUStyle
import CKernels

/// The CPU kernels against numpy references (tools/make_op_fixtures.py).
final class CPUOpTests: XCTestCase {
    let cpu: OpHarness.BackendFactory = { CPUBackend(weights: $0) }

    func testConvolutionMatchesNumpy() throws {
        let cases = try Fixtures.names(in: "ops", prefix: "conv_")
        XCTAssertGreaterThanOrEqual(cases.count, 10)
        try InstructionSet.forEachSupported { isa in
            for name in cases {
                let fixture = try Fixtures.tensors(name)
                let expected = fixture["output"]!.values
                let scale = expected.map(abs).max() ?? 1
                for fused in [false, true] {
                    assertClose(try OpHarness.convolution(fixture, backend: cpu, fused: fused), expected,
                                tolerance: 1e-5 * max(1, scale), "\(isa) \(name) fused \(fused)")
                }
            }
        }
    }

    /// Runs `body` under every instruction set this CPU has (the convolution's AVX-512, AVX2
    /// and portable twins).
    func testReflectionPadMatchesNumpy() throws {
        let cases = try Fixtures.names(in: "ops", prefix: "pad_")
        XCTAssertGreaterThanOrEqual(cases.count, 4)
        try InstructionSet.forEachSupported { isa in
            for name in cases {
                let fixture = try Fixtures.tensors(name)
                for split in [false, true] {
                    assertClose(try OpHarness.pad(fixture, split: split, backend: cpu), fixture["output"]!.values,
                                tolerance: 0, "\(isa) \(name) split=\(split)")
                }
            }
        }
    }

    /// A padded row's column table as runs (copies, every other column, repeated columns) moves
    /// exactly the columns the table names, for plain, split, upsampled and windowed pads of odd
    /// and even widths, on every twin.
    func testPadRowRunsReproduceTheirTable() {
        InstructionSet.forEachSupported { isa in
            for width in [2, 3, 17, 40, 129] {
                let shape = ExecutionPlan.DenseShape(channels: 1, height: 4, width: width)
                for (upsample, split, padding) in [(false, false, 1), (false, true, 1), (true, false, 1), (false, false, 4),
                                                   (true, true, 1)] where padding < width * (upsample ? 2 : 1) {
                    let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: shape, upsample: upsample,
                                                padding: padding, split: split)
                    let columns = ReflectPad.sourceColumns(for: pad)
                    let runs = ReflectPad.runs(for: pad)
                    let source = (0..<width).map(Float.init)
                    var row = [Float](repeating: -1, count: columns.count)
                    gs_pad_row(source, runs, Int32(runs.count), &row)
                    XCTAssertEqual(row, columns.map(Float.init), "\(isa) width \(width) upsample \(upsample) split \(split) pad \(padding)")
                }
            }
        }
    }

    /// Every twin of the micro-kernel must handle widths that are not a multiple of its tile
    /// (64 pixels for AVX-512, 32 for AVX2 and portable).
    func testConvolutionTailWidths() throws {
        try InstructionSet.forEachSupported { isa in try checkTailWidths(isa) }
    }

    private func checkTailWidths(_ isa: InstructionSet) throws {
        for width in [2, 31, 33, 63, 65, 130] {
            let input: [Float] = (0..<(2 * 5 * width)).map { (i: Int) -> Float in Float((i * 7919) % 13) / 13 - 0.5 }
            let weights: [Float] = (0..<(5 * 2 * 9)).map { (i: Int) -> Float in Float((i * 104729) % 17) / 17 - 0.5 }
            let fixture: [String: NamedTensor] = [
                "input": NamedTensor(name: "input", shape: [2, 5, width], values: input),
                "weight": NamedTensor(name: "weight", shape: [5, 2, 3, 3], values: weights),
                "stride": NamedTensor(name: "stride", shape: [1], values: [1]),
                "upsample": NamedTensor(name: "upsample", shape: [1], values: [0]),
            ]
            let actual = try OpHarness.convolution(fixture, backend: cpu)
            XCTAssertEqual(try OpHarness.convolution(fixture, backend: cpu, fused: true), actual, "\(isa) width \(width) fused")
            // Direct definition of the convolution, for this test only.
            var expected: [Float] = []
            func at(_ c: Int, _ y: Int, _ x: Int) -> Float {
                input[(c * 5 + ReflectPad.reflect(y, 5)) * width + ReflectPad.reflect(x, width)]
            }
            for co in 0..<5 {
                for y in 0..<5 {
                    for x in 0..<width {
                        var sum: Float = 0
                        for ci in 0..<2 { for ky in 0..<3 { for kx in 0..<3 {
                            let w: Float = weights[((co * 2 + ci) * 3 + ky) * 3 + kx]
                            sum += w * at(ci, y + ky - 1, x + kx - 1)
                        } } }
                        expected.append(sum)
                    }
                }
            }
            assertClose(actual, expected, tolerance: 1e-5, "\(isa) width \(width)")
        }
    }
}
