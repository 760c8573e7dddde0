/// A tiny rasteriser for charts: axis-aligned filled rectangles and `PlotFont` text on an RGB
/// raster, handed out as an `Image` so the project's PNG writer can save it. Everything is
/// clipped to the canvas, so callers can draw without bounds checks.
struct PlotCanvas {
    struct Color: Equatable {
        let r: Float, g: Float, b: Float
        init(_ r: Float, _ g: Float, _ b: Float) { self.r = r; self.g = g; self.b = b }
    }

    let width: Int
    let height: Int
    /// Planar RGB like `Image.rgb`: three `[height][width]` planes.
    private var rgb: [Float]

    init(width: Int, height: Int, background: Color) {
        self.width = width
        self.height = height
        let plane = width * height
        rgb = [Float](repeating: background.r, count: plane)
            + [Float](repeating: background.g, count: plane)
            + [Float](repeating: background.b, count: plane)
    }

    mutating func fill(x: Int, y: Int, width w: Int, height h: Int, color: Color) {
        let x0 = max(0, x), x1 = min(width, x + w)
        let y0 = max(0, y), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        let plane = width * height
        for row in y0..<y1 {
            let base = row * width
            for column in x0..<x1 {
                rgb[base + column] = color.r
                rgb[plane + base + column] = color.g
                rgb[2 * plane + base + column] = color.b
            }
        }
    }

    /// A one-pixel outline inside the rectangle.
    mutating func frame(x: Int, y: Int, width w: Int, height h: Int, color: Color) {
        fill(x: x, y: y, width: w, height: 1, color: color)
        fill(x: x, y: y + h - 1, width: w, height: 1, color: color)
        fill(x: x, y: y, width: 1, height: h, color: color)
        fill(x: x + w - 1, y: y, width: 1, height: h, color: color)
    }

    /// Draws `text` with its top-left corner at (x, y), each font pixel as a `scale` x `scale`
    /// block; characters past `maxWidth` pixels are dropped so labels never run into the next
    /// column.
    mutating func text(_ text: String, x: Int, y: Int, color: Color, scale: Int = 1, maxWidth: Int = .max) {
        var left = x
        for character in text {
            guard left + PlotFont.glyphWidth * scale - x <= maxWidth else { return }
            let glyph = PlotFont.glyph(character)
            for row in 0..<PlotFont.glyphHeight {
                for column in 0..<PlotFont.glyphWidth where glyph[row * PlotFont.glyphWidth + column] {
                    fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, color: color)
                }
            }
            left += PlotFont.advance * scale
        }
    }

    static func textWidth(_ text: String, scale: Int = 1) -> Int {
        text.isEmpty ? 0 : (text.count * PlotFont.advance - 1) * scale
    }

    var image: Image { Image(width: width, height: height, rgb: rgb) }
}
