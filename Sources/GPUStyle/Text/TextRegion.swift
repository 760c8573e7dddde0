/// One text line or word found by `TextRegionDecoder`: a rotated rectangle and how sure the
/// detector is.
public struct TextRegion: Sendable, Equatable {
    /// The rectangle in the probability map's pixels (pixel centres at integer coordinates, as
    /// `Point`), corners in reading direction (`TextReadingOrder`): topLeft -> topRight runs
    /// along the line's long side, in the direction it reads. Corners may lie up to the grown
    /// margin outside the map: a crop should sample beyond the border rather than clip them.
    public var quad: Quad
    /// The mean probability inside the region's core rectangle, before it was grown (0...1).
    public var score: Float

    public init(quad: Quad, score: Float) {
        self.quad = quad
        self.score = score
    }

    /// The region in a pixel grid `x` times wider and `y` times taller than the map's (the
    /// photo the map was computed for: `x` = photo width / map width), with pixel centres kept
    /// where they belong: p' = (p + 0.5) s - 0.5. PaddleOCR maps p' = p s instead, then rounds
    /// and clips each coordinate to the photo; that shifts the box by (s - 1) / 2 photo pixels.
    public func scaled(x sx: Double, y sy: Double) -> TextRegion {
        func map(_ p: Point) -> Point { Point(x: (p.x + 0.5) * sx - 0.5, y: (p.y + 0.5) * sy - 0.5) }
        return TextRegion(quad: Quad(topLeft: map(quad.topLeft), topRight: map(quad.topRight),
                                     bottomRight: map(quad.bottomRight), bottomLeft: map(quad.bottomLeft)),
                          score: score)
    }
}
