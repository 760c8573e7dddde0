import Foundation

/// Why four point pairs do not define a usable perspective mapping.
public struct HomographyError: Error, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case nonFinite = "non-finite"
        case collinear
        case selfIntersecting = "self-intersecting"
        case nonConvex = "non-convex"
        case tooSmall = "too small"
        case illConditioned = "ill-conditioned"
        case wrongOrientation = "wrong orientation"
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// A plane projective transform (3x3 matrix, row-major, acting on column vectors (x, y, 1)).
///
/// Points are pixel coordinates in the convention of `Point` (pixel centres at integers, origin
/// top-left, y down). `apply` maps a point forward; `inverse` maps back.
public struct Homography: Sendable, Equatable, CustomStringConvertible {
    /// Row-major m00 m01 m02 m10 m11 m12 m20 m21 m22, scaled so that m22 = 1 when that is
    /// possible (it is for every mapping `init(from:to:)` accepts).
    public let matrix: [Double]

    public init(matrix: [Double]) {
        precondition(matrix.count == 9, "a homography has 9 entries")
        self.matrix = Homography.normalized(matrix)
    }

    public static let identity = Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    public var description: String {
        (0..<3).map { r in "[" + (0..<3).map { String(format: "%.9g", matrix[3 * r + $0]) }.joined(separator: " ") + "]" }
            .joined(separator: " ")
    }

    /// Maps a point (non-finite where it goes to infinity).
    public func apply(_ p: Point) -> Point {
        let m = matrix
        let w = m[6] * p.x + m[7] * p.y + m[8]
        return Point(x: (m[0] * p.x + m[1] * p.y + m[2]) / w, y: (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }

    /// `quad` mapped corner by corner; nil when a corner lies behind the camera (on the far side
    /// of the horizon), where the mapped quad means nothing.
    public func apply(_ quad: Quad) -> Quad? {
        guard quad.corners.allSatisfy({ denominator(at: $0) > 0 }) else { return nil }
        return Quad(corners: quad.corners.map { apply($0) })
    }

    /// Projective denominator at `p` (its sign tells on which side of the horizon `p` lies).
    public func denominator(at p: Point) -> Double {
        matrix[6] * p.x + matrix[7] * p.y + matrix[8]
    }

    /// The inverse mapping (adjugate; the matrix is invertible for every accepted mapping).
    public var inverse: Homography {
        let m = matrix
        let a = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return Homography(matrix: a)
    }

    /// `self` after `other`: (self ∘ other)(p) = self(other(p)).
    public func composed(after other: Homography) -> Homography {
        let a = matrix, b = other.matrix
        var c = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for k in 0..<3 {
                c[3 * r + k] = a[3 * r] * b[k] + a[3 * r + 1] * b[3 + k] + a[3 * r + 2] * b[6 + k]
            }
        }
        return Homography(matrix: c)
    }

    public static func translation(_ dx: Double, _ dy: Double) -> Homography {
        Homography(matrix: [1, 0, dx, 0, 1, dy, 0, 0, 1])
    }

    private static func normalized(_ m: [Double]) -> [Double] {
        // Scale so m22 = 1 unless it is (numerically) zero; then so that the largest entry is 1.
        let largest = m.map(abs).max() ?? 0
        guard largest > 0, largest.isFinite else { return m }
        if abs(m[8]) > 1e-12 * largest { return m.map { $0 / m[8] } }
        return m.map { $0 / largest }
    }

    // MARK: solving

    /// The homography taking `source[i]` to `destination[i]` for i in 0..<4.
    ///
    /// Both point sets must be the corners of a convex, non-degenerate quadrilateral in the same
    /// cyclic order (either orientation). Method: Hartley normalisation of each set (centroid at
    /// the origin, mean distance √2), the 8×8 DLT system with h22 = 1 solved in Double by
    /// Gaussian elimination with partial pivoting, de-normalisation. h22 = 1 is safe after
    /// normalisation: the centroid of a convex quad lies inside it and cannot map to infinity.
    /// Throws `HomographyError` for non-finite, collinear, self-intersecting, non-convex, tiny
    /// or ill-conditioned input.
    public init(from source: [Point], to destination: [Point]) throws {
        precondition(source.count == 4 && destination.count == 4, "a homography needs exactly four point pairs")
        try Homography.checkQuadrilateral(source, name: "source quad")
        try Homography.checkQuadrilateral(destination, name: "destination quad")
        let (ns, ts) = Homography.hartley(source)
        let (nd, td) = Homography.hartley(destination)

        // Rows: [x y 1 0 0 0 -u x -u y | u], [0 0 0 x y 1 -v x -v y | v].
        var a = [Double](repeating: 0, count: 8 * 9)
        for i in 0..<4 {
            let x = ns[i].x, y = ns[i].y, u = nd[i].x, v = nd[i].y
            let r0 = 2 * i * 9, r1 = (2 * i + 1) * 9
            a[r0 + 0] = x; a[r0 + 1] = y; a[r0 + 2] = 1
            a[r0 + 6] = -u * x; a[r0 + 7] = -u * y; a[r0 + 8] = u
            a[r1 + 3] = x; a[r1 + 4] = y; a[r1 + 5] = 1
            a[r1 + 6] = -v * x; a[r1 + 7] = -v * y; a[r1 + 8] = v
        }
        guard let h = Homography.solve8(&a) else {
            throw HomographyError(.illConditioned, "the corners do not define a well-conditioned perspective mapping")
        }
        let normalizedH = Homography(matrix: h + [1])
        // H = Td⁻¹ · Hn · Ts
        let result = td.inverse.composed(after: normalizedH.composed(after: ts))
        guard result.matrix.allSatisfy(\.isFinite) else {
            throw HomographyError(.illConditioned, "the perspective mapping is not finite")
        }
        // The quad must stay on one side of the horizon, and the corners must map where asked.
        let scale = destination.map { max(abs($0.x), abs($0.y)) }.max()! + 1
        let signs = source.map { result.denominator(at: $0) }
        guard signs.allSatisfy({ $0 > 0 }) || signs.allSatisfy({ $0 < 0 }) else {
            throw HomographyError(.illConditioned, "the mapping sends part of the quad to infinity")
        }
        for (s, d) in zip(source, destination) {
            guard result.apply(s).distance(to: d) <= 1e-6 * scale else {
                throw HomographyError(.illConditioned, "the corners do not define a well-conditioned perspective mapping")
            }
        }
        self = result
    }

    /// The mapping from the output rectangle of a perspective correction to `quad`: output pixel
    /// centres (0, 0), (W−1, 0), (W−1, H−1), (0, H−1) go to the quad's top-left, top-right,
    /// bottom-right and bottom-left corners.
    public static func rectangle(width: Int, height: Int, to quad: Quad) throws -> Homography {
        precondition(width >= 2 && height >= 2, "the output rectangle needs at least 2x2 pixels")
        let w = Double(width - 1), h = Double(height - 1)
        return try Homography(from: [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)],
                              to: quad.corners)
    }

    // MARK: checks

    /// Smallest accepted |sin| of a corner angle: below it three corners count as collinear.
    static let minimumSine = 1e-3
    /// Smallest accepted area in square pixels.
    static let minimumArea = 1.0

    /// Checks that `points` are the corners of a convex quadrilateral, in order, of usable size.
    static func checkQuadrilateral(_ points: [Point], name: String,
                                   cornerNames: [String] = ["0", "1", "2", "3"]) throws {
        guard points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            throw HomographyError(.nonFinite, "\(name) corners must be finite numbers")
        }
        for i in 0..<4 where points[i] == points[(i + 1) % 4] {
            throw HomographyError(.collinear, "\(name) corners \(cornerNames[i]) and \(cornerNames[(i + 1) % 4]) coincide")
        }
        var crosses = [Double](repeating: 0, count: 4)
        for i in 0..<4 {
            let previous = points[(i + 3) % 4], corner = points[i], next = points[(i + 1) % 4]
            let a = corner - previous, b = next - corner
            let la = a.length, lb = b.length
            let cross = a.x * b.y - a.y * b.x
            guard abs(cross) / (la * lb) >= minimumSine else {
                let three = [(i + 3) % 4, i, (i + 1) % 4].map { cornerNames[$0] }.joined(separator: ", ")
                throw HomographyError(.collinear, "\(name) corners \(three) are (nearly) collinear")
            }
            crosses[i] = cross
        }
        let positive = crosses.filter { $0 > 0 }.count
        if positive == 2 {
            throw HomographyError(.selfIntersecting, "\(name) is self-intersecting: its corners are not in order around it")
        }
        if positive == 1 || positive == 3 {
            throw HomographyError(.nonConvex, "\(name) is not convex")
        }
        var area = 0.0
        for i in 0..<4 {
            let a = points[i], b = points[(i + 1) % 4]
            area += a.x * b.y - b.x * a.y
        }
        guard abs(area) / 2 >= minimumArea else {
            throw HomographyError(.tooSmall, "\(name) has (nearly) zero area")
        }
    }

    /// Hartley's conditioning: translate the centroid to the origin and scale the mean distance
    /// from it to √2 (nil when all points coincide).
    static func similarityNormalization(_ points: [Point]) -> Homography? {
        let n = Double(points.count)
        let cx = points.reduce(0) { $0 + $1.x } / n, cy = points.reduce(0) { $0 + $1.y } / n
        let mean = points.reduce(0) { $0 + ($1 - Point(x: cx, y: cy)).length } / n
        guard mean > 0, mean.isFinite else { return nil }
        let s = 2.0.squareRoot() / mean
        return Homography(matrix: [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1])
    }

    /// Hartley normalisation (`similarityNormalization`): the normalised points and the
    /// similarity that produced them. The corners passed `checkQuadrilateral`, so they are
    /// distinct and the similarity exists.
    private static func hartley(_ points: [Point]) -> ([Point], Homography) {
        let t = similarityNormalization(points)!
        return (points.map(t.apply), t)
    }

    /// Solves an 8×8 system given as an 8×9 augmented matrix, by Gaussian elimination with
    /// partial pivoting. Nil when a pivot is tiny relative to the largest one (ill-conditioned).
    private static func solve8(_ a: inout [Double]) -> [Double]? {
        let n = 8, stride = 9  // row stride of the augmented matrix
        var largestPivot = 0.0, smallestPivot = Double.infinity
        for column in 0..<n {
            var pivotRow = column
            for r in (column + 1)..<n where abs(a[r * stride + column]) > abs(a[pivotRow * stride + column]) { pivotRow = r }
            if pivotRow != column {
                for k in 0..<stride { a.swapAt(column * stride + k, pivotRow * stride + k) }
            }
            let pivot = a[column * stride + column]
            largestPivot = max(largestPivot, abs(pivot))
            smallestPivot = min(smallestPivot, abs(pivot))
            guard pivot != 0 else { return nil }
            for r in (column + 1)..<n {
                let f = a[r * stride + column] / pivot
                if f == 0 { continue }
                for k in column..<stride { a[r * stride + k] -= f * a[column * stride + k] }
            }
        }
        // After normalisation every entry is O(1); pivots this small mean a (near) singular system.
        guard smallestPivot > 1e-10 * largestPivot else { return nil }
        var x = [Double](repeating: 0, count: n)
        for r in (0..<n).reversed() {
            var sum = a[r * stride + n]
            for k in (r + 1)..<n { sum -= a[r * stride + k] * x[k] }
            x[r] = sum / a[r * stride + r]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

extension Quad {
    /// Checks that the quad can be rectified: finite corners, convex, clockwise on screen
    /// (top-left, top-right, bottom-right, bottom-left), no three corners collinear, area ≥ 1 px².
    public func validateForWarp() throws {
        try Homography.checkQuadrilateral(corners, name: "quad", cornerNames: ["top-left", "top-right", "bottom-right", "bottom-left"])
        guard area > 0 else {
            throw HomographyError(.wrongOrientation,
                                  "the corners go counter-clockwise on screen; give them as top-left, top-right, bottom-right, bottom-left")
        }
    }

    /// The size of the rectified picture: max(|br−bl|, |tr−tl|) × max(|tr−br|, |tl−bl|), rounded,
    /// at least 2 × 2.
    public var rectifiedSize: (width: Int, height: Int) {
        let w = max(bottomRight.distance(to: bottomLeft), topRight.distance(to: topLeft))
        let h = max(topRight.distance(to: bottomRight), topLeft.distance(to: bottomLeft))
        return (max(2, Int(w.rounded())), max(2, Int(h.rounded())))
    }
}
