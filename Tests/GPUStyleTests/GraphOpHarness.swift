import XCTest
@testable import GPUStyle

/// One-step (or lowered) plans over regions for the graph-op tests: every case runs on the CPU
/// backend and on Vulkan (validation layer on), against the fixtures that
/// tools/make_graph_op_fixtures.py writes to Fixtures/ops/graph.
class GraphOpTestCase: XCTestCase {
    private var vulkan: VulkanContext?

    override func setUpWithError() throws {
        do {
            vulkan = try VulkanTesting.context()
        } catch is XCTSkip {
            vulkan = nil  // no Vulkan here: the CPU half still runs
        }
    }

    override func tearDown() {
        if let vulkan { VulkanTesting.assertNoValidationErrors(vulkan) }
        vulkan = nil
    }

    /// Runs `body` with a fresh CPU backend, then with a fresh Vulkan backend (when there is one).
    func forEachBackend(_ body: (_ backend: NetworkBackend, _ name: String) throws -> Void) throws {
        try body(CPUBackend(weights: []), "cpu")
        if let vulkan { try body(try VulkanBackend(context: vulkan, weights: []), "vulkan") }
    }

    /// A Vulkan backend whose bindings hold at most `bindingBytes` (nil without Vulkan).
    func chunkedVulkan(bindingBytes: Int) throws -> VulkanBackend? {
        guard let vulkan else { return nil }
        let backend = try VulkanBackend(context: vulkan, weights: [])
        backend.maxBindingBytes = bindingBytes
        return backend
    }

    func fixture(_ name: String) throws -> [String: NamedTensor] {
        try Fixtures.tensors("ops/graph/\(name).gpsw")
    }
}

/// Tensors placed in `.pool` at 64-float aligned offsets after a nonzero lead, as
/// GraphLowering places intermediate tensors.
struct PoolLayout {
    private(set) var values: [Float]

    init(lead: Int = 2 * ExecutionPlan.planeAlignment) {
        values = [Float](repeating: .nan, count: lead)  // NaN: reading outside a region shows
    }

    /// A region for `shape` holding `contents` (or NaNs for an output).
    mutating func place(_ shape: NetworkGraph.Shape, _ contents: [Float]? = nil) -> ExecutionPlan.Region {
        let offset = roundUp(values.count, ExecutionPlan.planeAlignment)
        values += [Float](repeating: .nan, count: offset - values.count)
        values += contents ?? [Float](repeating: .nan, count: shape.elementCount)
        precondition(values.count == offset + shape.elementCount, "contents do not match the shape")
        return .init(buffer: .pool, offset: offset, shape: shape)
    }

    mutating func place(_ tensor: NamedTensor) -> ExecutionPlan.Region {
        place(GraphOps.shape(tensor), tensor.values)
    }
}

enum GraphOps {
    static func shape(_ tensor: NamedTensor) -> NetworkGraph.Shape {
        precondition(tensor.shape.count == 3, "a [C][H][W] tensor")
        return .init(channels: tensor.shape[0], height: tensor.shape[1], width: tensor.shape[2])
    }

    static func scalar(_ t: [String: NamedTensor], _ name: String) -> Int { Int(t[name]!.values[0]) }

    /// Runs `steps` over `layout`'s pool and returns the pool afterwards.
    static func run(_ steps: [ExecutionPlan.Step], _ layout: PoolLayout, constants: ModelConstants? = nil,
                    on backend: NetworkBackend) throws -> [Float] {
        let shape = ExecutionPlan.DenseShape(channels: 1, height: 1, width: 1)
        let plan = ExecutionPlan(steps: steps, bufferFloats: [.pool: layout.values.count], inputShape: shape, output: .pool,
                                 outputShape: shape, constants: constants)
        return try backend.run(plan, inputs: [.pool: layout.values], normParameters: [], affine: nil, outputs: [.pool])[.pool]!
    }

    /// The floats of `region` in a pool read back by `run`.
    static func read(_ pool: [Float], _ region: ExecutionPlan.Region) -> [Float] {
        Array(pool[region.offset..<region.offset + region.floatCount])
    }
}
