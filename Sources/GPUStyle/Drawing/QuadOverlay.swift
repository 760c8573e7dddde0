/// Draws quads' outlines on a copy of an image (for `gpustyle detect --overlay`).
public enum QuadOverlay {
    /// Each quad in turn red, green, blue, yellow; or all in `color` (red, green, blue in [0, 1]).
    public static func draw(_ quads: [Quad], on image: Image, thickness: Double = 3, color single: (Float, Float, Float)? = nil) -> Image {
        var out = image
        let colors: [(Float, Float, Float)] = single.map { [$0] } ?? [(1, 0.1, 0.1), (0.1, 1, 0.1), (0.2, 0.4, 1), (1, 1, 0.1)]
        let plane = image.width * image.height
        for (index, quad) in quads.enumerated() {
            let color = colors[index % colors.count]
            let c = quad.corners
            for i in 0..<4 {
                forEachPoint(from: c[i], to: c[(i + 1) % 4]) { p in
                    let r = Int(thickness / 2)
                    for dy in -r...r {
                        for dx in -r...r {
                            let x = Int(p.x.rounded()) + dx, y = Int(p.y.rounded()) + dy
                            guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                            let i = y * image.width + x
                            out.rgb[i] = color.0
                            out.rgb[plane + i] = color.1
                            out.rgb[2 * plane + i] = color.2
                        }
                    }
                }
            }
        }
        return out
    }

    /// Calls `body` with points along the segment from `a` to `b`, two per pixel of its length,
    /// both ends included: where the line drawers stamp. Nothing for a segment that is not finite
    /// or is 1e5 pixels or longer (no photo holds it; its steps would not fit an Int).
    static func forEachPoint(from a: Point, to b: Point, _ body: (Point) -> Void) {
        let length = a.distance(to: b)
        guard length.isFinite, length < 1e5 else { return }
        let steps = Int(length * 2) + 1
        for s in 0...steps { body(a + (b - a) * (Double(s) / Double(steps))) }
    }
}

extension QuadOverlay {
    /// Draws quads' outlines in white on a Y4M frame of either range, in place (`gpustyle live
    /// --digits`): luma at the range's white, the chroma samples under the line made grey; or in
    /// `color` (red, green, blue in [0, 1]: `gpustyle live --text`'s blue lines and green
    /// characters, as `TextReport.overlay`).
    public static func draw(_ quads: [Quad], on frame: inout YUVFrame, fullRange: Bool, thickness: Int = 3,
                            color: (Float, Float, Float)? = nil) {
        draw(quads.map { (points: $0.corners, closed: true) }, on: &frame, fullRange: fullRange, thickness: thickness, color: color)
    }

    /// Draws polylines (joined back to their first point when `closed`) in white (or `color`) on
    /// a Y4M frame, as the quads above (`gpustyle live --faces`: the face regions' outlines).
    /// Points are in the quads' convention: pixel (i, j) centred on (i, j).
    public static func draw(_ polylines: [(points: [Point], closed: Bool)], on frame: inout YUVFrame, fullRange: Bool,
                            thickness: Int, color: (Float, Float, Float)? = nil) {
        guard thickness > 0 else { return }
        let ink = color.map { YUVConversion.codes(red: $0.0, green: $0.1, blue: $0.2, fullRange: fullRange) }
            ?? (y: fullRange ? 255 : 235, u: 128, v: 128)
        let (fx, fy) = frame.chroma.factors
        let chromaWidth = (frame.width + fx - 1) / fx
        let hasChroma = !frame.u.isEmpty
        let low = -(thickness - 1) / 2, high = thickness / 2
        for line in polylines where line.points.count >= 2 {
            let c = line.points
            for i in 0..<(line.closed ? c.count : c.count - 1) {
                forEachPoint(from: c[i], to: c[(i + 1) % c.count]) { p in
                    let px = Int(p.x.rounded()), py = Int(p.y.rounded())
                    for dy in low...high {
                        for dx in low...high {
                            let x = px + dx, y = py + dy
                            guard x >= 0, y >= 0, x < frame.width, y < frame.height else { continue }
                            frame.y[y * frame.width + x] = ink.y
                            if hasChroma {
                                let ci = (y / fy) * chromaWidth + x / fx
                                frame.u[ci] = ink.u
                                frame.v[ci] = ink.v
                            }
                        }
                    }
                }
            }
        }
    }
}
