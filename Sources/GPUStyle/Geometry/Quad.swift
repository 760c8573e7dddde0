/// A point in image pixel coordinates: origin at the top-left, x to the right, y down, and
/// pixel centres at integer coordinates (the top-left pixel covers [-0.5, 0.5]²).
public struct Point: Sendable, Equatable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    public var description: String { "(\(x), \(y))" }

    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }
    public var length: Double { (x * x + y * y).squareRoot() }

    /// The mean of `points` (their centroid); `points` must not be empty.
    public static func mean(_ points: [Point]) -> Point {
        precondition(!points.isEmpty, "the mean of no points")
        return points.reduce(Point(x: 0, y: 0), +) * (1 / Double(points.count))
    }
    public func distance(to other: Point) -> Double { (self - other).length }
}

/// Four corners of a quadrilateral in pixel coordinates, in clockwise order on screen:
/// top-left, top-right, bottom-right, bottom-left.
public struct Quad: Sendable, Equatable, CustomStringConvertible {
    public var topLeft: Point
    public var topRight: Point
    public var bottomRight: Point
    public var bottomLeft: Point

    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// From `corners` in the order top-left, top-right, bottom-right, bottom-left.
    public init(corners c: [Point]) {
        precondition(c.count == 4, "a quad has 4 corners")
        self.init(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3])
    }

    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The mean of the four corners.
    public var centre: Point { (topLeft + topRight + bottomRight + bottomLeft) * 0.25 }

    /// Corner i of `corners` (i in 0...3) without making the array: for loops that test
    /// thousands of quads (`area`, `contains`).
    @inline(__always)
    func corner(_ i: Int) -> Point {
        switch i & 3 {
        case 0: topLeft
        case 1: topRight
        case 2: bottomRight
        default: bottomLeft
        }
    }

    public var description: String { corners.map(\.description).joined(separator: " ") }

    /// Area by the shoelace formula (positive for the documented clockwise-on-screen order).
    public var area: Double {
        var sum = 0.0
        for i in 0..<4 {
            let a = corner(i), b = corner(i + 1)
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    /// Axis-aligned bounds: (x, y, width, height).
    public var boundingBox: (x: Double, y: Double, width: Double, height: Double) {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return (xs.min()!, ys.min()!, xs.max()! - xs.min()!, ys.max()! - ys.min()!)
    }

    /// The same quad with corners relabelled so that the first is the one nearest the image's
    /// top-left and the order is clockwise on screen (what callers and tests expect).
    public func canonicalized() -> Quad {
        var c = corners
        if area < 0 { c = [c[0], c[3], c[2], c[1]] }
        let start = (0..<4).min { c[$0].x + c[$0].y < c[$1].x + c[$1].y }!
        let r = (0..<4).map { c[(start + $0) % 4] }
        return Quad(corners: r)
    }
}

/// One rectangle found by `RectangleDetector`, like Vision's VNRectangleObservation.
public struct RectangleObservation: Sendable {
    public var quad: Quad
    /// 0...1: the chance that the observation is right (corners within 10 px of a rectangle in
    /// the picture), measured on scenes with known rectangles from its edge support and its
    /// place in the list (`DetectConfidence`).
    public var confidence: Float
    /// Whether the hand-built stages measured the corners on the image's edges (false: a
    /// learned finder's proposal no hand-built observation agreed with, its corners the side
    /// fit around the network's; `FinderFusion`). Live video takes a lost picture back, or moves
    /// a tracked one, only on measured corners (`LivePipeline`).
    public var measured: Bool

    public init(quad: Quad, confidence: Float, measured: Bool = true) {
        self.quad = quad
        self.confidence = confidence
        self.measured = measured
    }
}

/// Detection parameters, with Apple Vision's VNDetectRectanglesRequest names and defaults.
public struct RectangleDetectionOptions: Sendable {
    /// Smallest accepted short-side/long-side ratio of the rectangle (0...1).
    public var minimumAspectRatio: Double = 0.5
    /// Largest accepted short-side/long-side ratio (0...1).
    public var maximumAspectRatio: Double = 1.0
    /// Largest deviation of a corner angle from 90°, in degrees (0...45).
    public var quadratureTolerance: Double = 30
    /// Smallest accepted size, as a fraction of the image's shorter side (0...1).
    public var minimumSize: Double = 0.2
    /// Observations below this confidence (the measured chance of being right) are dropped (0...1).
    public var minimumConfidence: Double = 0
    /// How many observations to return at most, best first; 0 = all.
    public var maximumObservations: Int = 1

    public init() {}
}
