import CVulkan
import Foundation
import XCTest
@testable import GPUStyle

/// Prints what one memory access of each kind costs on the Vulkan device (Shaders/bench_access.comp,
/// one build per kind): texel fetches (R32F, RGBA32F), uniform-buffer loads at lane-varying
/// addresses (float, vec4), storage-buffer loads and stores, storage texel stores, and
/// multiply-adds, as device nanoseconds per access of all invocations together and floats per
/// second, medians of 7 interleaved rounds with the range. From them, the ceiling of a standalone
/// depthwise 3x3 layer (every output stored once, every input fetched once, 9 multiply-adds per
/// output). Runs only with GPUSTYLE_ACCESS_COST_TIMING=1.
final class VulkanAccessCostTimingTests: XCTestCase {
    private struct Kind {
        let number: UInt32, name: String, floats: Int
    }

    private static let kinds = [
        Kind(number: 0, name: "loop only (no access)", floats: 1),
        Kind(number: 1, name: "texelFetch R32F", floats: 1),
        Kind(number: 2, name: "texelFetch RGBA32F", floats: 4),
        Kind(number: 3, name: "uniform buffer float, lane-varying", floats: 1),
        Kind(number: 4, name: "uniform buffer vec4, lane-varying", floats: 4),
        Kind(number: 5, name: "storage buffer float load", floats: 1),
        Kind(number: 6, name: "storage buffer vec4 load", floats: 4),
        Kind(number: 7, name: "storage buffer u64vec2 store", floats: 4),
        Kind(number: 13, name: "storage buffer uint64 store (a float pair)", floats: 2),
        Kind(number: 8, name: "storage buffer float store", floats: 1),
        Kind(number: 9, name: "storage buffer vec4 store", floats: 4),
        Kind(number: 11, name: "imageStore rgba32f", floats: 4),
        Kind(number: 12, name: "imageStore r32f", floats: 1),
        Kind(number: 10, name: "vec4 fma (4 multiply-adds)", floats: 4),
    ]

    private static let shader = VulkanShader(
        name: "bench_access",
        bindings: [.texels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32G32B32A32_SFLOAT), .uniform, .storage, .storage, .storage,
                   .storageTexels(VK_FORMAT_R32G32B32A32_SFLOAT), .storageTexels(VK_FORMAT_R32_SFLOAT)],
        pushConstantWords: 3)

    func testAccessCosts() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_ACCESS_COST_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_ACCESS_COST_TIMING=1")
        }
        let backend = try VulkanBackend(context: VulkanContext(), weights: [])
        let context = backend.context, recorder = backend.recorder
        let pool = VulkanBufferPool(context: context)
        let groups = 256, invocations = 64 * groups, iterations = 256
        let storeElements = 1 << 18
        let floats = try pool.allocate(bytes: 4 * (storeElements + invocations))
        let wide = try pool.allocate(bytes: 16 * storeElements)
        let pairs = try pool.allocate(bytes: 16 * storeElements)
        let images = try pool.allocate(bytes: 16 * storeElements)
        defer { [floats, wide, pairs, images].forEach(pool.free) }
        // The loads read the first 64 KiB of the float buffer (written by the float stores first).
        let loads = floats.range.slice(offset: 0, size: 65536)
        let buffers = [loads, loads, loads, floats.range, wide.range, pairs.range, images.range, images.range.slice(offset: 0, size: 4 * storeElements)]
        let pipelines = try Self.kinds.map { try backend.pipelines.pipeline(Self.shader, constants: [$0.number]) }
        let timestamps = try VulkanTimestamps(context: context)
        recorder.timestamps = timestamps
        defer { recorder.timestamps = nil }

        func seconds(_ pipeline: VulkanPipeline) throws -> Double {
            try recorder.begin()
            try timestamps.start(recorder.commandBuffer, expectedDispatches: 1)
            try recorder.dispatch(pipeline, buffers: buffers, push: [UInt32(iterations), UInt32(invocations), Float(0.5).bitPattern],
                                  groups: (groups, 1, 1), label: "bench access")
            try timestamps.finish()
            try recorder.submitAndWait()
            return try timestamps.resolve().dispatches.reduce(0) { $0 + $1.nanoseconds } * 1e-9
        }

        let rounds = Int(ProcessInfo.processInfo.environment["GPUSTYLE_ACCESS_COST_ROUNDS"] ?? "") ?? 7
        var times = [[Double]](repeating: [], count: Self.kinds.count)
        _ = try seconds(pipelines[Self.kinds.firstIndex { $0.number == 8 }!])  // initialise the loaded floats
        for round in 0...rounds {
            for (i, pipeline) in pipelines.enumerated() {
                let t = try seconds(pipeline)
                if round > 0 { times[i].append(t) }  // the first round warms up
            }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let accesses = Double(invocations * iterations)
        let loop = median(times[0]) / accesses * 1e9
        print("access costs on \(backend.name): \(invocations) invocations x \(iterations) accesses, median [min-max] of \(rounds) rounds")
        print("  kind: ns per access (all lanes together), ns net of the loop, Gfloat/s")
        var net: [UInt32: Double] = [:]
        for (i, kind) in Self.kinds.enumerated() {
            let ns = times[i].map { $0 / accesses * 1e9 }
            net[kind.number] = median(ns) - loop
            print(String(format: "  %@: %.3f [%.3f-%.3f] ns, net %.3f ns, %.2f Gfloat/s", kind.name, median(ns), ns.min()!, ns.max()!,
                         median(ns) - loop, Double(kind.floats) / median(ns)))
        }
        // A standalone depthwise 3x3 layer: per output, one float stored (a quarter of a u64vec2
        // or rgba32f store), 9 multiply-adds, and at least its share of the input fetched once
        // (stride 1: one float; stride 2: four), whichever load is cheapest per float.
        let store = min(net[7]!, net[11]!) / 4, fma = net[10]! / 4
        let loadPerFloat = [net[1]!, net[2]! / 4, net[3]!, net[4]! / 4, net[5]!, net[6]! / 4].min()!
        for (stride, inputs) in [(1, 1.0), (2, 4.0)] {
            let ns = store + 9 * fma + inputs * loadPerFloat
            print(String(format: "depthwise 3x3 stride %d ceiling: %.3f ns per output (store %.3f, 9 fma %.3f, loads %.3f) = %.1f GFLOP/s",
                         stride, ns, store, 9 * fma, inputs * loadPerFloat, 18 / ns))
        }
    }
}
