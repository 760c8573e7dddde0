import Foundation
import GPUStyle

/// `gpustyle bench --digits photo`: every stage of `gpustyle digits` (note detection, the
/// checks, straightening, preparation, the MNIST network) on one photo, on the CPU path and on
/// each Vulkan stage (edge stage, warp, network), after a warm-up run; each path's readings are
/// compared with the CPU path's.
struct DigitsBench {
    let runs: Int
    let photo: String

    func run(vulkan: VulkanContext?) throws -> [RectangleBench.Row] {
        let image = try ImageIO.read(path: photo)
        var paths: [(String, () throws -> NoteReader)] = [("cpu", {
            NoteReader(detector: RectangleDetector(), warper: CPUPerspectiveWarper(),
                       classifier: try DigitClassifier(backend: CPUBackend(weights: [])))
        })]
        if let vulkan {
            paths.append(("vulkan", {
                let detector = RectangleDetector()
                detector.edgeStage = try EdgeStage.vulkan(context: vulkan)
                let backend = try VulkanBackend(context: vulkan, weights: [], options: VulkanBackend.Options(.fromEnvironment()))
                return NoteReader(detector: detector, warper: try VulkanPerspectiveWarper(context: vulkan),
                                  classifier: try DigitClassifier(backend: backend))
            }))
        }
        var rows: [RectangleBench.Row] = []
        var reference: [NoteReading]?
        for (label, make) in paths {
            let reader = try make()
            var notes: [NoteReading] = []
            let seconds = try RectangleBench(runs: runs).time { notes = try reader.read(image) }
            var row = RectangleBench.Row(work: "digits (\(notes.count) notes)", size: "\(image.width)x\(image.height)", path: label,
                                         seconds: seconds)
            if let reference {
                let same = reference.map { DigitsReport.label($0) } == notes.map { DigitsReport.label($0) }
                let gap = zip(reference, notes).flatMap { zip($0.quad.corners, $1.quad.corners).map { $0.distance(to: $1) } }.max() ?? 0
                row.parity = same && reference.count == notes.count
                    ? String(format: "same readings, corners within %.3f px", gap) : "different readings"
            } else {
                reference = notes
            }
            rows.append(row)
        }
        return rows
    }
}
