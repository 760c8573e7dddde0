/// How a video is split among `--shard` tasks: into `parts` ranges of frames (presentation
/// order), each starting at a keyframe so that a task can seek to it and decode on its own.
///
/// Boundary k (1 ..< parts) is the keyframe nearest to frame k × frames / parts (the earlier one
/// on a tie); the first range starts at frame 0 and the last ends at `frameCount`. With fewer
/// keyframes than parts, two boundaries can fall on the same keyframe: the range between them is
/// empty (that task has no frames to stylize).
public enum VideoRanges {
    public static func split(frameCount: Int, keyframes: [Int], parts: Int) -> [Range<Int>] {
        precondition(parts >= 1 && frameCount >= 0)
        let candidates = keyframes.filter { $0 > 0 && $0 < frameCount }.sorted()
        var bounds = [0]
        for k in 1..<max(parts, 1) {
            // k × frames / parts as a fraction: compare distances scaled by `parts`.
            let target = k * frameCount
            var best = 0
            var bestDistance = abs(target)  // frame 0 is always a boundary
            for key in candidates {
                let distance = abs(key * parts - target)
                if distance < bestDistance { best = key; bestDistance = distance }
            }
            bounds.append(max(best, bounds.last!))
        }
        bounds.append(frameCount)
        return (0..<parts).map { bounds[$0]..<bounds[$0 + 1] }
    }
}
