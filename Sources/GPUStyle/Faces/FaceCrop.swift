import Foundation

/// The square of a photo the landmark model looks at: centred on a face's box, its side the box's
/// longer side times `scale`, turned so that the eyes are level (as MediaPipe's face mesh
/// pipeline crops a detection: DetectionsToRect + RectTransformation with scale 1.5, square by
/// the long side, rotation from the two eyes).
///
/// Coordinates are continuous: pixel (i, j) covers [i, i + 1) x [j, j + 1), its centre at
/// (i + 0.5, j + 0.5), as the detector's boxes.
public struct FaceCrop: Sendable, Equatable {
    public var centre: Point
    /// Side of the square in photo pixels.
    public var side: Double
    /// Angle of the eye line, radians, from the image's x axis towards its y axis (down).
    public var rotation: Double

    /// MediaPipe's ROI scale for the face mesh (`ROI_SCALE` in its face landmark graph).
    public static let scale = 1.5

    public init(centre: Point, side: Double, rotation: Double) {
        self.centre = centre
        self.side = side
        self.rotation = rotation
    }

    /// The crop for `face`: its box's centre, 1.5 times its longer side, the eye line's angle.
    public init(face: Face, scale: Double = FaceCrop.scale) {
        let left = face[.leftEye], right = face[.rightEye]
        self.init(centre: Point(x: face.x + face.width / 2, y: face.y + face.height / 2),
                  side: max(face.width, face.height) * scale,
                  rotation: atan2(right.y - left.y, right.x - left.x))
    }

    /// The mesh's own points that set the tracking crop's angle: the outer corners of the eyes
    /// (MediaPipe's face_landmarks_to_roi: rotation from keypoint 33 to 263).
    public static let trackingEyeCorners = (start: 33, end: 263)

    /// The crop for the next frame from this frame's mesh, as MediaPipe's face mesh follows a
    /// face without the detector (face_landmarks_to_roi): the points' bounding box's centre,
    /// 1.5 times its longer side, the angle of the line between the eyes' outer corners.
    public init(mesh: FaceMesh, scale: Double = FaceCrop.scale) {
        let box = mesh.bounds
        let a = mesh.points[Self.trackingEyeCorners.start], b = mesh.points[Self.trackingEyeCorners.end]
        self.init(centre: box.centre, side: max(box.width, box.height) * scale, rotation: atan2(b.y - a.y, b.x - a.x))
    }

    /// The photo point at crop point (u, v), in crop pixels of a `size`-pixel crop.
    public func photoPoint(u: Double, v: Double, size: Int) -> Point {
        let k = side / Double(size)
        let x = (u - Double(size) / 2) * k, y = (v - Double(size) / 2) * k
        let c = cos(rotation), s = sin(rotation)
        return Point(x: centre.x + x * c - y * s, y: centre.y + x * s + y * c)
    }

    /// The crop, `size` x `size`, sampled bilinearly at each pixel's centre; outside the photo
    /// is black (as PIL's transform, which MediaPipe's Python ports use, leaves it).
    public func sample(_ image: Image, size: Int) -> Image {
        var rgb = [Float](repeating: 0, count: 3 * size * size)
        let plane = size * size
        for v in 0..<size {
            for u in 0..<size {
                let p = photoPoint(u: Double(u) + 0.5, v: Double(v) + 0.5, size: size)
                // Between the four pixel centres around p.
                let fx = p.x - 0.5, fy = p.y - 0.5
                let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
                let ax = Float(fx - Double(x0)), ay = Float(fy - Double(y0))
                for c in 0..<3 {
                    func at(_ x: Int, _ y: Int) -> Float {
                        guard x >= 0, y >= 0, x < image.width, y < image.height else { return 0 }
                        return image.rgb[c * image.pixelCount + y * image.width + x]
                    }
                    let top = at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax
                    let bottom = at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax
                    rgb[c * plane + v * size + u] = top * (1 - ay) + bottom * ay
                }
            }
        }
        return Image(width: size, height: size, rgb: rgb)
    }
}
