import CKernels
import XCTest
@testable import GPUStyle

/// Kernel-2 stride-2 transposed convolution against torch's conv_transpose2d
/// (tools/make_conv2d_fixtures.py), on the CPU (every instruction set) and on Vulkan, with and
/// without bias, with fused activations (ReLU, sigmoid, PReLU, hard sigmoid).
final class TransposedConv2DTests: XCTestCase {
    func testCPUMatchesTorchOnEveryISA() throws {
        let names = try Conv2DFixtures.names(prefix: "transposed_conv2d_")
        XCTAssertEqual(names.count, 6)
        var isas: [String] = []
        try InstructionSet.forEachSupported { _ in
            let isa = String(cString: gs_conv2d_isa())
            isas.append(isa)
            for name in names {
                let t = try Fixtures.tensors(name)
                for inPool in [false, true] {
                    let got = try Conv2DFixtures.run(CPUBackend(weights: []), Conv2DFixtures.transposed(t, inPool: inPool))
                    Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on \(isa)\(inPool ? " in the pool" : "")")
                }
            }
        }
        XCTAssertTrue(isas.contains("portable"), "\(isas)")
    }

    /// PP-OCR's DB head exported by torch (tools/make_onnx_fixtures.py): the batch norm and the
    /// constant add after the transposed convolutions are folded into them at import, the ReLU and
    /// sigmoid fused at lowering, so the plan is the two transposed convolutions alone.
    static func headPlan() throws -> (plan: ExecutionPlan, input: [Float], expected: NamedTensor) {
        let (graph, shape) = try ONNXImporterTests.importFixture("transposed_head.onnx")
        XCTAssertEqual(graph.nodes.map(\.operation.name), ["conv_transpose", "relu", "conv_transpose", "sigmoid"])
        let fixture = try Fixtures.tensors("onnx/transposed_head.gpsw")
        let reference = try GraphReference.run(graph, input: ONNXImporterTests.reference(fixture["input"]!))
        XCTAssertLessThan(ONNXImporterTests.maxDifference(reference.values, fixture["output"]!.values), 1e-6)
        let plan = try GraphLowering.lower(graph, input: shape!)
        XCTAssertEqual(plan.steps.map(\.opName), ["transposed_conv2d", "transposed_conv2d"])
        let activations = plan.steps.compactMap { step -> Activation? in
            guard case .transposedConv2d(let t) = step else { return nil }
            return t.activation.kind
        }
        XCTAssertEqual(activations, [.relu, .sigmoid])
        return (plan, fixture["input"]!.values, fixture["output"]!)
    }

    func testImportedHeadFoldsBatchNormAndFusesActivations() throws {
        let (plan, input, expected) = try Self.headPlan()
        try InstructionSet.forEachSupported { isa in
            let out = try CPUBackend(weights: []).run(plan, inputs: [.input: input], normParameters: [], affine: nil,
                                                      outputs: [.result])
            Conv2DFixtures.assertClose(out[.result]!, expected, "head on the CPU, \(isa)")
        }
    }
}

final class TransposedConv2DVulkanTests: VulkanTestCase {
    func testVulkanMatchesTorch() throws {
        let backend = try VulkanBackend(context: context, weights: [])
        for name in try Conv2DFixtures.names(prefix: "transposed_conv2d_") {
            let t = try Fixtures.tensors(name)
            for inPool in [false, true] {
                let got = try Conv2DFixtures.run(backend, Conv2DFixtures.transposed(t, inPool: inPool))
                Conv2DFixtures.assertClose(got, t["output"]!, "\(name) on Vulkan\(inPool ? " in the pool" : "")")
            }
        }
    }

    func testVulkanImportedHeadFoldsBatchNormAndFusesActivations() throws {
        let (plan, input, expected) = try TransposedConv2DTests.headPlan()
        let out = try VulkanBackend(context: context, weights: []).run(plan, inputs: [.input: input], normParameters: [],
                                                                       affine: nil, outputs: [.result])
        Conv2DFixtures.assertClose(out[.result]!, expected, "head on Vulkan")
    }
}
