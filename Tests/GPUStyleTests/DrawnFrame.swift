@testable import GPUStyle

/// An axis-aligned picture frame drawn in a 640x480 photo: a moulding `band` px wide just inside
/// `outer`, a matte inside the moulding, and the wall around it coloured per pixel.
enum DrawnFrame {
    typealias Colour = (r: Float, g: Float, b: Float)

    static func render(outer o: (x0: Double, x1: Double, y0: Double, y1: Double), band: Double, matte: Colour,
                       moulding: Colour, wall: (_ x: Double, _ y: Double) -> Colour) -> Image {
        let (w, h) = (640, 480)
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for y in 0..<h {
            for x in 0..<w {
                let px = Double(x), py = Double(y)
                let inOuter = px >= o.x0 && px < o.x1 && py >= o.y0 && py < o.y1
                let inInner = px >= o.x0 + band && px < o.x1 - band && py >= o.y0 + band && py < o.y1 - band
                let value = inInner ? matte : (inOuter ? moulding : wall(px, py))
                rgb[y * w + x] = value.r
                rgb[(h + y) * w + x] = value.g
                rgb[(2 * h + y) * w + x] = value.b
            }
        }
        return Image(width: w, height: h, rgb: rgb, alpha: nil)
    }
}
