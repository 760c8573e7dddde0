import XCTest
@testable import GPUStyle

/// global_average_pool_subgroup.comp (subgroupAdd, used where `VulkanContext.subgroupArithmetic`)
/// and its fallback global_average_pool.comp (a shared-memory tree) on the same device, both
/// against the CPU path (itself checked against torch by PoolTests): planes from 1 pixel to
/// 1024 x 1024 (on lavapipe workgroups of 8 and 64 invocations: one 8-lane subgroup or eight),
/// also at a region offset that is not on a 256-byte boundary. The two reductions add the
/// invocations' shares in different orders, so they agree to fp32 rounding, not bit for bit.
final class GlobalAveragePoolSubgroupTests: VulkanTestCase {
    /// Relative to the mean's magnitude: a few fp32 roundings of a sum of at most 2^20 values,
    /// each invocation's share Kahan-compensated.
    static let tolerance: Float = 1e-5

    private func means(_ shape: NetworkGraph.Shape, _ values: [Float], lead: Int, on backend: NetworkBackend) throws -> [Float] {
        var layout = PoolLayout(lead: lead)
        let input = layout.place(shape, values)
        let output = layout.place(.init(channels: shape.channels, height: 1, width: 1))
        return GraphOps.read(try GraphOps.run([.globalAveragePool(.init(input: input, output: output))], layout, on: backend), output)
    }

    func testSubgroupAndFallbackMatchCPUPath() throws {
        print("\(context.info.name): subgroup arithmetic in compute shaders: \(context.subgroupArithmetic)")
        let cpu = CPUBackend(weights: [])
        let shapes: [(NetworkGraph.Shape, Int)] = [
            (.init(channels: 3, height: 1, width: 1), 128), (.init(channels: 70, height: 7, width: 7), 128),
            (.init(channels: 5, height: 13, width: 17), 192), (.init(channels: 2, height: 1024, width: 1024), 128),
        ]
        for (shape, lead) in shapes {
            let values = VulkanTesting.random(shape.elementCount, seed: UInt64(shape.elementCount), range: -2...6)
            let expected = try means(shape, values, lead: lead, on: cpu)
            for subgroups in [true, false] {
                let backend = try VulkanBackend(context: context, weights: [])
                backend.usesSubgroups = subgroups
                let got = try means(shape, values, lead: lead, on: backend)
                let usedSubgroups = backend.recorder.labels.contains { $0.contains("global average pool") && $0.hasSuffix("subgroupAdd") }
                XCTAssertEqual(usedSubgroups, subgroups && context.subgroupArithmetic, "\(shape): which shader ran")
                for (g, e) in zip(got, expected) {
                    XCTAssertEqual(g, e, accuracy: Self.tolerance * max(1, abs(e)), "\(shape) subgroups \(subgroups)")
                }
            }
        }
    }
}
