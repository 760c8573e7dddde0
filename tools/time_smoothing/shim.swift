// Stand-ins for the library's Image and ParallelFor, for tools/time_smoothing/run.sh only.
import Dispatch
public struct Image: Sendable {
    public var width: Int
    public var height: Int
    public var rgb: [Float]
    public init(width: Int, height: Int, rgb: [Float]) { self.width = width; self.height = height; self.rgb = rgb }
    public var pixelCount: Int { width * height }
}
enum ParallelFor {
    static func ranges(_ count: Int, grain: Int = 1, _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let chunks = min(count / max(grain, 1), 8)
        if chunks <= 1 { body(0..<count); return }
        DispatchQueue.concurrentPerform(iterations: chunks) { k in
            body((count * k / chunks)..<(count * (k + 1) / chunks))
        }
    }
}
