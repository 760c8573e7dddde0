/// An axis-aligned box in pixels: around a set of points (a face mesh), or a detector's face box.
public struct BoundingBox: Sendable, Equatable {
    public var x0, y0, x1, y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// The smallest box holding `points` (inverted, with no area, when there are none).
    public init(_ points: [Point]) {
        self.init(x0: .infinity, y0: .infinity, x1: -.infinity, y1: -.infinity)
        for p in points {
            x0 = min(x0, p.x); x1 = max(x1, p.x)
            y0 = min(y0, p.y); y1 = max(y1, p.y)
        }
    }

    /// The face's box.
    public init(_ face: Face) {
        self.init(x0: face.x, y0: face.y, x1: face.x + face.width, y1: face.y + face.height)
    }

    public var width: Double { x1 - x0 }
    public var height: Double { y1 - y0 }
    public var centre: Point { Point(x: (x0 + x1) / 2, y: (y0 + y1) / 2) }
    public var area: Double { max(0, width) * max(0, height) }

    public func contains(_ p: Point) -> Bool { p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1 }

    /// Intersection over union (0 when the boxes do not meet).
    public func overlap(_ other: BoundingBox) -> Double {
        let w = min(x1, other.x1) - max(x0, other.x0), h = min(y1, other.y1) - max(y0, other.y0)
        guard w > 0, h > 0 else { return 0 }
        return w * h / (area + other.area - w * h)
    }
}
