/// A label drawn over a picture: text in a semi-opaque dark box, readable on any background.
///
/// The same blend on planar RGB (`Image`) and on Y4M frames (`YUVFrame`, where the live path
/// draws without converting the frame): the box scales the colour towards black by `opacity`,
/// then the text's coverage blends it towards white.
public struct LabelStyle: Sendable, Equatable {
    /// Text height in pixels per em.
    public var pixelSize: Int
    /// Space between the text and the box's edges, in pixels.
    public var padding: Int
    /// How much of the picture the box takes away: 0.6 keeps the picture visible behind it and
    /// white text readable on white (contrast 1 : 0.4).
    public var opacity: Float = 0.6

    public init(pixelSize: Int, padding: Int? = nil) {
        self.pixelSize = pixelSize
        self.padding = padding ?? max(2, pixelSize / 4)
    }

    /// A size that reads the same on any frame: a 24th of the frame's height (20 px at 480
    /// lines, 45 at 1080), at least 12 px.
    public static func scaled(toHeight height: Int) -> LabelStyle {
        LabelStyle(pixelSize: max(12, height / 24))
    }
}

/// Where a label's box landed: inside the picture (clipped when it is larger than the picture).
public struct LabelBox: Sendable, Equatable {
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int
    /// Where the text's top-left corner is (it may extend past a clipped box).
    public let textX: Int
    public let textY: Int

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
}

public enum LabelDrawing {
    /// The box for `text` with its top-left corner wanted at (`x`, `y`), moved as little as
    /// needed to lie inside a `width` x `height` picture.
    public static func place(_ text: TextBitmap, style: LabelStyle, x: Int, y: Int, width: Int, height: Int) -> LabelBox {
        let boxWidth = text.width + 2 * style.padding, boxHeight = text.height + 2 * style.padding
        let left = max(0, min(x, width - boxWidth)), top = max(0, min(y, height - boxHeight))
        return LabelBox(x: left, y: top, width: min(boxWidth, width - left), height: min(boxHeight, height - top),
                        textX: left + style.padding, textY: top + style.padding)
    }

    /// Ink of the text at picture pixel (`px`, `py`) in [0, 1].
    @inline(__always)
    static func ink(_ text: TextBitmap, _ box: LabelBox, _ px: Int, _ py: Int) -> Float {
        let tx = px - box.textX, ty = py - box.textY
        guard tx >= 0 && tx < text.width && ty >= 0 && ty < text.height else { return 0 }
        return Float(text.coverage[ty * text.width + tx]) / 255
    }

    /// Draws `text` in its box onto `image` (RGB in [0, 1]); returns the box.
    @discardableResult
    public static func draw(_ text: TextBitmap, on image: inout Image, x: Int, y: Int, style: LabelStyle) -> LabelBox {
        let box = place(text, style: style, x: x, y: y, width: image.width, height: image.height)
        let keep = 1 - style.opacity, plane = image.pixelCount
        for py in box.y..<(box.y + box.height) {
            for px in box.x..<(box.x + box.width) {
                let a = ink(text, box, px, py)
                for channel in 0..<3 {
                    let i = channel * plane + py * image.width + px
                    let dark = image.rgb[i] * keep
                    image.rgb[i] = dark + (1 - dark) * a
                }
            }
        }
        return box
    }

    /// Draws `text` in its box onto a Y4M frame of either range; returns the box. Luma blends
    /// as the RGB version does (black and white at the range's ends); the chroma moves towards
    /// grey by the box and by the text's mean coverage over each chroma sample's pixels.
    @discardableResult
    public static func draw(_ text: TextBitmap, on frame: inout YUVFrame, fullRange: Bool, x: Int, y: Int,
                            style: LabelStyle) -> LabelBox {
        let box = place(text, style: style, x: x, y: y, width: frame.width, height: frame.height)
        guard box.width > 0 && box.height > 0 else { return box }
        let keep = 1 - style.opacity
        let black: Float = fullRange ? 0 : 16, white: Float = fullRange ? 255 : 235
        for py in box.y..<(box.y + box.height) {
            for px in box.x..<(box.x + box.width) {
                let i = py * frame.width + px
                let dark = black + (Float(frame.y[i]) - black) * keep
                frame.y[i] = UInt8((dark + (white - dark) * ink(text, box, px, py)).rounded())
            }
        }
        let (fx, fy) = frame.chroma.factors
        guard !frame.u.isEmpty else { return box }
        let chromaWidth = (frame.width + fx - 1) / fx
        for cy in (box.y / fy)...((box.y + box.height - 1) / fy) {
            for cx in (box.x / fx)...((box.x + box.width - 1) / fx) {
                // The chroma sample's luma pixels that lie in the box.
                var inside = 0, coverage: Float = 0
                for py in (cy * fy)..<min(frame.height, cy * fy + fy) {
                    for px in (cx * fx)..<min(frame.width, cx * fx + fx) where box.contains(x: px, y: py) {
                        inside += 1
                        coverage += ink(text, box, px, py)
                    }
                }
                guard inside > 0 else { continue }
                let share = Float(inside) / Float(fx * fy)
                let scale = 1 - share * (1 - keep * (1 - coverage / Float(inside)))
                let i = cy * chromaWidth + cx
                frame.u[i] = UInt8((128 + (Float(frame.u[i]) - 128) * scale).rounded())
                frame.v[i] = UInt8((128 + (Float(frame.v[i]) - 128) * scale).rounded())
            }
        }
        return box
    }
}
