import Foundation
import GPUStyle

/// The learned picture finder in `gpustyle bench --finder`: the network on a 320x240 working
/// image (a 640x480 frame halved) and the decoding of its heads, timed apart on every path, each
/// path's heads compared with the CPU path's.
struct FinderBench {
    let runs: Int
    /// The working image: a 640x480 frame's, as `PictureFinder` makes it.
    static let width = 320, height = 240

    func run(vulkan: VulkanContext?) throws -> [RectangleBench.Row] {
        let image = Self.scene()
        var rows: [RectangleBench.Row] = []
        var reference: [Float]?
        for (label, backend) in try ClassifyBench.networkBackends(vulkan: vulkan) {
            let finder = try PictureFinder(backend: backend)
            var heads: (heads: [Float], height: Int, width: Int) = ([], 0, 0)
            let network = try RectangleBench(runs: runs).time { heads = try finder.rawHeads(image) }
            var row = RectangleBench.Row(work: "finder network", size: "\(Self.width)x\(Self.height)", path: label, seconds: network)
            if let reference {
                let difference = zip(reference, heads.heads).map { abs($0 - $1) }.max() ?? 0
                row.parity = String(format: "max|d| %.1e", difference)
            } else {
                reference = heads.heads
            }
            rows.append(row)
            let decode = RectangleBench(runs: runs).time {
                _ = FinderHeads.decode(heads.heads, height: heads.height, width: heads.width)
            }
            rows.append(RectangleBench.Row(work: "finder decode", size: "\(Self.width)x\(Self.height)", path: label, seconds: decode))
        }
        return rows
    }

    /// A light rectangle with a dark frame on a textured wall (the decode's cost depends on the
    /// peaks the heads hold).
    static func scene() -> Image {
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        for c in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    let wall = 0.5 + 0.2 * Float(sin(Double(x) * 0.21 + Double(c)) * cos(Double(y) * 0.17))
                    let inside = x >= 90 && x < 230 && y >= 60 && y < 180
                    let frame = inside && (x < 98 || x >= 222 || y < 68 || y >= 172)
                    rgb[(c * height + y) * width + x] = frame ? 0.08 : inside ? 0.85 - 0.1 * Float(c) : wall
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb)
    }
}
