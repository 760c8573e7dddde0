import Foundation

/// What `gpustyle detect` prints: text for people, JSON for programs (also `gpustyle analyze`'s
/// "rectangles").
public enum DetectionReport {
    /// The corners with their JSON names, top-left first and clockwise.
    public static func corners(_ quad: Quad) -> [(String, Point)] {
        [("topLeft", quad.topLeft), ("topRight", quad.topRight), ("bottomRight", quad.bottomRight), ("bottomLeft", quad.bottomLeft)]
    }

    /// `{"file", "width", "height", "observations", "milliseconds"}` on one line.
    public static func json(_ observations: [RectangleObservation], file: String, width: Int, height: Int, seconds: Double) -> String {
        let object: [String: Any] = ["file": file, "width": width, "height": height,
                                     "observations": items(observations, width: width, height: height), "milliseconds": seconds * 1000]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The "observations" array of `json` (also `gpustyle analyze`'s "rectangles").
    public static func items(_ observations: [RectangleObservation], width: Int, height: Int) -> [[String: Any]] {
        observations.map { o in
            let box = o.quad.boundingBox
            return [
                "corners": Dictionary(uniqueKeysWithValues: corners(o.quad).map { ($0.0, [$0.1.x, $0.1.y]) }),
                "normalized": Dictionary(uniqueKeysWithValues: corners(o.quad).map {
                    ($0.0, [($0.1.x + 0.5) / Double(width), 1 - ($0.1.y + 0.5) / Double(height)])
                }),
                "confidence": Double(o.confidence),
                "boundingBox": [box.x, box.y, box.width, box.height],
            ]
        }
    }

    /// `#1 confidence 0.90: topLeft (x, y), ...` per observation, or "no rectangle found".
    public static func text(_ observations: [RectangleObservation], width: Int, height: Int) -> String {
        guard !observations.isEmpty else { return "no rectangle found" }
        return observations.enumerated().map { index, o in
            let list = corners(o.quad).map { String(format: "%@ (%.1f, %.1f)", $0.0, $0.1.x, $0.1.y) }.joined(separator: ", ")
            return String(format: "#%d confidence %.2f: %@", index + 1, o.confidence, list)
        }.joined(separator: "\n")
    }
}
