import CVulkan
import Foundation
import XCTest
@testable import GPUStyle

/// Prints what one dispatch costs on the Vulkan device beyond its work: chains of N trivial
/// dispatches (Shaders/bench_dispatch.comp, one invocation storing one float) recorded as the
/// backend records a plan (a fresh descriptor set per dispatch, texel views, a global barrier
/// after each), against the same chain with one descriptor set bound once (the driver alone),
/// without barriers, with timestamps, and with storage buffers instead of texel views. Host
/// recording and device execution (submit to fence) are timed apart; per-dispatch figures are
/// (T(N) - T(1)) / (N - 1), medians of 7 interleaved rounds. Runs only with
/// GPUSTYLE_DISPATCH_FLOOR_TIMING=1.
final class VulkanDispatchFloorTimingTests: XCTestCase {
    private enum Recording: String, CaseIterable {
        case storageTexel1 = "recorder, 1 storage texel view, barrier after each"
        case texels4 = "recorder, 4 bindings as the graph convs (3 texel views + 1 uniform), barrier after each"
        case storage4 = "recorder, 4 storage buffers, barrier after each"
        case texels4NoBarrier = "recorder, 4 bindings, no barriers"
        case texels4Timestamps = "recorder, 4 bindings, barriers, timestamps around each (profile)"
        case boundOnce = "one descriptor set bound once, cmdDispatch + barrier"
        case boundOnceNoBarrier = "one descriptor set bound once, cmdDispatch only"
    }

    private static let benchDispatch1 = VulkanShader(name: "bench_dispatch", bindings: [.storageTexels(VK_FORMAT_R32_SFLOAT)],
                                                     pushConstantWords: 1)
    private static let benchDispatch4 = VulkanShader(
        name: "bench_dispatch",
        bindings: [.storageTexels(VK_FORMAT_R32_SFLOAT), .texels(VK_FORMAT_R32_SFLOAT), .uniform, .texels(VK_FORMAT_R32_SFLOAT)],
        pushConstantWords: 1)
    private static let benchDispatchStorage4 = VulkanShader(name: "bench_dispatch_storage", bindings: Array(repeating: .storage, count: 4),
                                                            pushConstantWords: 1)

    func testDispatchFloor() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_DISPATCH_FLOOR_TIMING"] == "1" else {
            throw XCTSkip("set GPUSTYLE_DISPATCH_FLOOR_TIMING=1")
        }
        let backend = try VulkanBackend(context: VulkanContext(), weights: [])
        let context = backend.context, recorder = backend.recorder, vk = context.vk
        let pool = VulkanBufferPool(context: context)
        let buffers = try (0..<4).map { _ in try pool.allocate(bytes: 4096) }
        defer { buffers.forEach(pool.free) }
        let ranges = buffers.map(\.range)
        let one = try backend.pipelines.pipeline(Self.benchDispatch1)
        let four = try backend.pipelines.pipeline(Self.benchDispatch4)
        let storage = try backend.pipelines.pipeline(Self.benchDispatchStorage4)
        let timestamps = try VulkanTimestamps(context: context)

        /// Host seconds recording and device seconds executing a chain of `n` dispatches.
        func run(_ kind: Recording, _ n: Int) throws -> (record: Double, execute: Double) {
            let clock = ContinuousClock()
            let start = clock.now
            try recorder.begin()
            if kind == .texels4Timestamps {
                recorder.timestamps = timestamps
                try timestamps.start(recorder.commandBuffer, expectedDispatches: n)
            }
            let value = [Float(1).bitPattern]
            switch kind {
            case .storageTexel1, .texels4, .storage4, .texels4NoBarrier, .texels4Timestamps:
                let pipeline = kind == .storageTexel1 ? one : kind == .storage4 ? storage : four
                let bound = kind == .storageTexel1 ? [ranges[0]] : ranges
                for _ in 0..<n {
                    try recorder.dispatch(pipeline, buffers: bound, push: value, groups: (1, 1, 1), label: "floor")
                    if kind != .texels4NoBarrier { recorder.barrier() }
                }
            case .boundOnce, .boundOnceNoBarrier:
                // One recorder dispatch binds the set and pipeline; the rest reuse them.
                try recorder.dispatch(four, buffers: ranges, push: value, groups: (1, 1, 1), label: "floor")
                for _ in 1..<max(n, 1) {
                    if kind == .boundOnce { recorder.barrier() }
                    vk.cmdDispatch(recorder.commandBuffer, 1, 1, 1)
                }
            }
            if recorder.timestamps != nil { try timestamps.finish() }
            let recorded = clock.now
            try recorder.submitAndWait()
            let done = clock.now
            if recorder.timestamps != nil {
                _ = try timestamps.resolve()
                recorder.timestamps = nil
            }
            func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
            return (seconds(recorded - start), seconds(done - recorded))
        }

        let long = 201
        var perDispatch: [Recording: [(record: Double, execute: Double)]] = [:]
        for round in 0..<8 {
            for kind in Recording.allCases {
                let short = try run(kind, 1), chain = try run(kind, long)
                guard round > 0 else { continue }  // the first round warms the pipelines and pools
                perDispatch[kind, default: []].append(((chain.record - short.record) / Double(long - 1),
                                                       (chain.execute - short.execute) / Double(long - 1)))
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let l = context.limits
        print("limits: maxUniformBufferRange \(l.maxUniformBufferRange), maxPerStageDescriptorUniformBuffers "
              + "\(l.maxPerStageDescriptorUniformBuffers), maxComputeSharedMemorySize \(l.maxComputeSharedMemorySize)")
        print("dispatch floor on \(backend.name): µs per dispatch, median [min-max] of \(perDispatch.first!.value.count) rounds")
        for kind in Recording.allCases {
            let r = perDispatch[kind]!.map { $0.record * 1e6 }, e = perDispatch[kind]!.map { $0.execute * 1e6 }
            print(String(format: "  %@: record %.1f [%.1f-%.1f], execute %.1f [%.1f-%.1f]", kind.rawValue,
                         median(r), r.min()!, r.max()!, median(e), e.min()!, e.max()!))
        }
    }
}
