import XCTest
@testable import GPUStyle
import CKernels

/// `instance_norm` (conditional instance norm: statistics, then the affine with activation and
/// residual) on the CPU kernels (`CKernels/instance_norm.c`) against the numpy fixtures of
/// tools/make_op_fixtures.py (`Fixtures/ops/instance_norm_*`).
final class InstanceNormTests: XCTestCase {
    let cpu: OpHarness.BackendFactory = { CPUBackend(weights: $0) }

    func testCPUMatchesNumpy() throws {
        let cases = try Fixtures.names(in: "ops", prefix: "instance_norm_")
        XCTAssertGreaterThanOrEqual(cases.count, 4)
        let variants: [(Activation, Bool, String)] = [(.identity, false, "out_identity"), (.relu, false, "out_relu"),
                                                      (.sigmoid, false, "out_sigmoid"), (.identity, true, "out_identity_residual")]
        try InstructionSet.forEachSupported { isa in
            for name in cases {
                let fixture = try Fixtures.tensors(name)
                for (activation, residual, key) in variants {
                    let actual = try OpHarness.norm(fixture, activation: activation, residual: residual, backend: cpu)
                    assertClose(actual, fixture[key]!.values, tolerance: 2e-5, "\(isa) \(name) \(key)")
                }
            }
        }
    }

    /// The sigmoid's vector exp (`exp8_` in instance_norm_body.inc) over the whole float range
    /// and beyond, where its input is clamped, against the definition in double; on every twin,
    /// with a length that leaves a scalar tail.
    func testSigmoidOverTheWholeRange() {
        let n = 100_003
        let x = (0..<n).map { Float(-120 + 240 * Double($0) / Double(n - 1)) }
        InstructionSet.forEachSupported { isa in
            var y = [Float](repeating: .nan, count: n)
            gs_instance_norm_apply(x, Int64(n), 1, 0, Int32(Activation.sigmoid.rawValue), nil, &y)
            let worst = zip(x, y).map { abs(Double($1) - 1 / (1 + exp(-Double($0)))) }.max()!
            XCTAssertLessThan(worst, 2e-7, "\(isa)")
        }
    }
}

/// The same op on its GLSL kernels (`Shaders/instance_norm_statistics.glsl` in both builds: the
/// subgroupAdd one where the device has subgroup arithmetic, and the shared-memory tree every
/// device can run; `instance_norm_apply.comp`), with whole-tensor and channel-chunked bindings.
final class InstanceNormVulkanTests: VulkanTestCase {
    /// A backend whose statistics add up with subgroupAdd (where the device can) or in the tree.
    private func backend(subgroups: Bool) throws -> VulkanBackend {
        let backend = try VulkanBackend(context: context, weights: [])
        backend.usesSubgroups = subgroups
        return backend
    }

    private func assertReduction(_ backend: VulkanBackend, subgroups: Bool, _ what: String) {
        let usedSubgroups = backend.recorder.labels.contains { $0.contains("norm statistics") && $0.hasSuffix("subgroupAdd") }
        XCTAssertEqual(usedSubgroups, subgroups && context.subgroupArithmetic, "\(what): which reduction ran")
    }

    private func checkNorm(_ file: String, chunkBytes: Int?, subgroups: Bool) throws {
        let t = try VulkanTesting.fixture(file)
        let input = t["input"]!
        let shape = OpHarness.shape(input)
        let channels = shape.channels
        let layer = 1  // not 0, so the table offsets are exercised
        var parameters = [Float](repeating: 0, count: 2 * ExecutionPlan.parametersPerLayer)
        for c in 0..<channels {
            parameters[layer * 64 + c] = t["gamma"]!.values[c]
            parameters[layer * 64 + 32 + c] = t["beta"]!.values[c]
        }
        let backend = try backend(subgroups: subgroups)
        if let chunkBytes { backend.maxBindingBytes = chunkBytes }
        let cases: [(Activation, Bool, String)] = [(.identity, false, "out_identity"), (.relu, false, "out_relu"),
                                                   (.sigmoid, false, "out_sigmoid"), (.identity, true, "out_identity_residual")]
        for (activation, residual, name) in cases {
            for inPlace in [false, true] {
                let destination: ExecutionPlan.Buffer = inPlace ? .a : .b
                let plan = ExecutionPlan(
                    steps: [.instanceNormStatistics(.init(layer: layer, source: .a, shape: shape)),
                            .instanceNormApply(.init(layer: layer, source: .a, destination: destination, shape: shape,
                                             activation: activation, residual: residual ? .c : nil))],
                    bufferFloats: [.a: shape.floatCount, .b: shape.floatCount, .c: shape.floatCount],
                    inputShape: shape, output: destination, outputShape: shape)
                let out = try backend.run(plan, inputs: [.a: OpHarness.planar(input.values, shape),
                                                         .c: OpHarness.planar(t["residual"]!.values, shape)],
                                          normParameters: parameters)
                VulkanTesting.assertClose(OpHarness.dense(out, shape), t[name]!.values,
                                          "\(file) \(name) inPlace=\(inPlace) chunk=\(chunkBytes ?? 0) subgroups=\(subgroups)")
                assertReduction(backend, subgroups: subgroups, file)
            }
        }
    }

    func testMatchesNumpy() throws {
        for file in try VulkanTesting.fixtures(prefix: "instance_norm_") {
            for subgroups in [true, false] { try checkNorm(file, chunkBytes: nil, subgroups: subgroups) }
        }
    }

    func testInChannelChunks() throws {
        for file in try VulkanTesting.fixtures(prefix: "instance_norm_") {
            let t = try VulkanTesting.fixture(file)
            let plane = OpHarness.shape(t["input"]!).planeStride
            for subgroups in [true, false] { try checkNorm(file, chunkBytes: 4 * 3 * plane, subgroups: subgroups) }
        }
    }

    /// Maps of millions of pixels (lavapipe caps loop iterations per invocation, and fp32 sums
    /// over 4 million values lose digits) against float64 statistics.
    func testStatisticsOnLargeMaps() throws {
        for subgroups in [true, false] { try checkLargeMaps(subgroups: subgroups) }
    }

    private func checkLargeMaps(subgroups: Bool) throws {
        let backend = try backend(subgroups: subgroups)
        for (height, width) in [(1080, 1920), (2048, 2048)] {
            let shape = ExecutionPlan.DenseShape(channels: 1, height: height, width: width)
            let count = height * width
            // Offset values: a large mean relative to the spread is the hard case for variance.
            let x = VulkanTesting.random(count, seed: UInt64(count), range: 3...5)
            var parameters = [Float](repeating: 0, count: ExecutionPlan.parametersPerLayer)
            parameters[0] = 1.5
            parameters[32] = 0.25
            let plan = ExecutionPlan(
                steps: [.instanceNormStatistics(.init(layer: 0, source: .a, shape: shape)),
                        .instanceNormApply(.init(layer: 0, source: .a, destination: .a, shape: shape, activation: .identity, residual: nil))],
                bufferFloats: [.a: shape.floatCount], inputShape: shape, output: .a, outputShape: shape)
            let out = try backend.run(plan, inputs: [.a: OpHarness.planar(x, shape)], normParameters: parameters)
            let mean = x.reduce(0.0) { $0 + Double($1) } / Double(count)
            let variance = x.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(count)
            let scale = 1.5 / (variance + 1e-5).squareRoot()
            var worst = 0.0
            for i in stride(from: 0, to: count, by: 101) {
                worst = max(worst, abs((Double(x[i]) - mean) * scale + 0.25 - Double(out[i])))
            }
            XCTAssertLessThan(worst, 1e-4, "\(height)x\(width) subgroups=\(subgroups)")
            assertReduction(backend, subgroups: subgroups, "\(height)x\(width)")
        }
    }
}
