import ArgumentParser
import Foundation
import GPUStyle

/// One way to run the network, with the cost of getting it ready.
struct BenchPath {
    let label: String
    let device: String
    let setupSeconds: Double
    let stylizer: Stylizer?
    let error: String?

    static func cpu(_ model: StyleModel) -> BenchPath {
        let start = MonotonicClock.seconds()
        let backend = CPUBackend(weights: model.convolutions)
        return BenchPath(label: "cpu", device: backend.name, setupSeconds: MonotonicClock.seconds() - start,
                         stylizer: Stylizer(model: model, backend: backend), error: nil)
    }

    /// One path per Vulkan device. Unavailable Vulkan is reported in the table, not fatal,
    /// unless the user asked for GPUs only.
    static func vulkan(_ model: StyleModel, required: Bool) -> [BenchPath] {
        do {
            let options = ComputeOptions.fromEnvironment()
            let devices = try VulkanContext.devices(options: options)
            return devices.map { info in
                let start = MonotonicClock.seconds()
                do {
                    let context = try VulkanContext(deviceIndex: info.index, options: options)
                    let backend = try VulkanBackend(context: context, weights: model.convolutions, options: VulkanBackend.Options(options))
                    return BenchPath(label: devices.count == 1 ? "vulkan" : "vulkan\(info.index)", device: backend.name,
                                     setupSeconds: MonotonicClock.seconds() - start,
                                     stylizer: Stylizer(model: model, backend: backend), error: nil)
                } catch {
                    return BenchPath(label: "vulkan\(info.index)", device: info.name, setupSeconds: 0, stylizer: nil, error: "\(error)")
                }
            }
        } catch {
            return [BenchPath(label: "vulkan", device: "none", setupSeconds: 0, stylizer: nil, error: "\(error)")]
        }
    }
}

struct BenchResult {
    let path: String
    let width: Int
    let height: Int
    let firstSeconds: Double
    let seconds: [Double]
    var output: Image?
    var parity: Parity?

    static func measure(_ stylizer: Stylizer, path: BenchPath, image: Image, mix: StyleMix, runs: Int) throws -> BenchResult {
        var start = MonotonicClock.seconds()
        var output = try stylizer.stylize(image, mix: mix)
        let first = MonotonicClock.seconds() - start
        var times: [Double] = []
        for _ in 0..<runs {
            start = MonotonicClock.seconds()
            output = try stylizer.stylize(image, mix: mix)
            times.append(MonotonicClock.seconds() - start)
        }
        return BenchResult(path: path.label, width: image.width, height: image.height, firstSeconds: first,
                           seconds: times.sorted(), output: output, parity: nil)
    }

    var minimum: Double { seconds.first! }
    var median: Double { BenchStatistics.median(seconds) }
    var p95: Double { BenchStatistics.percentile95(seconds) }
    var gflops: Double {
        let macs = StyleNetwork.macs(height: (height + 3) / 4 * 4, width: (width + 3) / 4 * 4)
        return 2 * Double(macs) / median / 1e9
    }
}
