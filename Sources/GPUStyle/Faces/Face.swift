/// A face found in a photo: its box, how sure the detector is, and five landmarks.
///
/// Pixels, origin at the image's top-left corner, x to the right, y down (as `detect`'s corners).
public struct Face: Sendable, Equatable {
    /// The box's top-left corner and size.
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// The detector's probability that the box holds a face (0-1).
    public var confidence: Float
    /// Eyes, nose tip and mouth corners, in `Landmark` order.
    public var landmarks: [Point]

    /// The five points, in RetinaFace's order. Left and right are as seen in the image of an
    /// upright face (the left eye is the person's right eye).
    public enum Landmark: Int, CaseIterable, Sendable {
        case leftEye, rightEye, nose, mouthLeft, mouthRight

        /// Its key in JSON.
        public var name: String {
            switch self {
            case .leftEye: return "leftEye"
            case .rightEye: return "rightEye"
            case .nose: return "nose"
            case .mouthLeft: return "mouthLeft"
            case .mouthRight: return "mouthRight"
            }
        }
    }

    public init(x: Double, y: Double, width: Double, height: Double, confidence: Float, landmarks: [Point]) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
        self.landmarks = landmarks
    }

    public subscript(_ landmark: Landmark) -> Point { landmarks[landmark.rawValue] }

    /// Intersection over union of two boxes (0 when either is empty).
    public func overlap(_ other: Face) -> Double {
        let intersection = intersectionArea(other)
        guard intersection > 0 else { return 0 }
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }

    /// The box's area.
    public var area: Double { width * height }

    /// The area the two boxes share (0 when they do not meet).
    public func intersectionArea(_ other: Face) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        return w > 0 && h > 0 ? w * h : 0
    }

    /// The same face in an image scaled by these factors (a face found in a resized copy, mapped back).
    func scaled(x sx: Double, y sy: Double) -> Face {
        Face(x: x * sx, y: y * sy, width: width * sx, height: height * sy, confidence: confidence,
             landmarks: landmarks.map { Point(x: $0.x * sx, y: $0.y * sy) })
    }
}
