import XCTest
import CKernels
@testable import GPUStyle

/// The process-wide instruction-set cap (`CKernels/isa.c`): every twin of every kernel runs the
/// whole networks against their onnxruntime fixtures, so a machine with AVX-512 also tests the
/// AVX2 and portable paths a machine without it takes.
final class InstructionSetTests: XCTestCase {
    override func tearDown() {
        InstructionSet.limit(to: nil)
        super.tearDown()
    }

    func testLimitCapsTheLevelEveryKernelReports() {
        let best = InstructionSet.supported
        XCTAssertEqual(InstructionSet.limit(to: nil), best)
        XCTAssertEqual(InstructionSet.limit(to: .portable), .portable)
        XCTAssertEqual(InstructionSet.inUse, .portable)
        XCTAssertEqual(String(cString: gs_conv2d_isa()), "portable")
        XCTAssertEqual(String(cString: gs_cpu_kernel_isa()), "portable")
        XCTAssertEqual(gs_has_avx2_fma(), 0)
        XCTAssertEqual(InstructionSet.limit(to: .avx512), best, "a cap above the CPU's best runs its best")
        XCTAssertEqual(InstructionSet.limit(to: nil), best)
        XCTAssertEqual("\(InstructionSet.avx2)", "avx2+fma")
    }

    /// One style-network case and every classify photo, per level this CPU has.
    func testEveryTwinMatchesOnnxruntime() throws {
        let model = try StyleModel.bundled()
        let style = try XCTUnwrap(NetworkTests.cases().first)
        try InstructionSet.forEachSupported { level in
            XCTAssertEqual(InstructionSet.inUse, level)
            let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
            let output = try stylizer.stylize(NetworkTests.image(from: style.fixture["input"]!), mix: style.mix)
            assertClose(output.rgb, style.fixture[style.key]!.values, tolerance: NetworkTests.tolerance,
                        "\(level): \(style.photo) \(style.key)")
            let worst = try ClassifyFixtures.check(backend: CPUBackend(weights: []))
            print("\(level): classify parity, largest probability difference \(worst)")
        }
    }
}
