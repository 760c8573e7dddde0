import Foundation

/// The learned picture finder's output (issue 36), decoded into quads: the Swift twin of
/// tools/train_finder.py's `decode`, which the training's evaluation uses (tests check both on
/// the same heads).
///
/// The network maps the working image to 14 maps at a quarter of its size (output pixel j is
/// input pixel 4 j + 1.5, pixel centres at integers), all raw (logits and offsets):
/// - channel 0: the centre heatmap, a peak at each quad's centre (the intersection of its
///   diagonals; Zhou, Wang and Krähenbühl, "Objects as Points", 2019);
/// - channels 1-8: the corners' offsets from the centre cell, (x, y) for the top-left,
///   top-right, bottom-right and bottom-left corner in the quad's own order, divided by
///   `offsetScale` output pixels;
/// - channels 9-12: a heatmap per corner type, in the same order (Law and Deng, "CornerNet",
///   2018): a regressed corner is snapped to the nearest peak of its type;
/// - channel 13: the outline (pixels within an output pixel of a side), for training and for
///   the confidence.
///
/// A quad is a centre peak (a 3 × 3 maximum of at least `threshold` after the sigmoid) with its
/// four regressed corners, each moved to the nearest peak of its corner type within
/// `snapRadius` or `snapFraction` of the regressed quad's shortest side, whichever is larger,
/// when there is one (a hidden corner keeps its regressed position). A quad every
/// corner of which is within `duplicateDistance` of a stronger quad's is dropped.
public enum FinderHeads {
    public static let channels = 14
    /// Input pixels per output pixel.
    public static let stride = 4
    /// Output pixels per unit of the offset channels (offsets stay within about ±1.5).
    public static let offsetScale: Float = 32
    /// Corner-type peaks count from this probability.
    static let cornerPeakThreshold: Float = 0.1
    /// The strongest peaks kept per map (centres; corners take `maximumCornerPeaks`).
    static let maximumCentrePeaks = 50
    static let maximumCornerPeaks = 100

    /// A decoded quad in input (working image) pixels, with its centre peak's probability.
    public struct Candidate: Sendable, Equatable {
        public var quad: Quad
        public var score: Float
    }

    public struct Options: Sendable, Equatable {
        /// Centre peaks below this probability are not quads.
        public var threshold: Float = 0.3
        /// A corner moves to a peak of its type at most this far (output pixels; 12 input px),
        /// or `snapFraction` of the regressed quad's shortest side if that is more. Chosen in
        /// tools/train_finder.py on development seeds 6000-6002 with an early checkpoint whose
        /// regressed corners were 10-30 px off on pictures over 100 px: 160 of 398 quads found
        /// with a fixed 3, 264 with half the shortest side (extra quads 204 -> 94).
        public var snapRadius: Double = 3
        public var snapFraction: Double = 0.5
        /// A quad whose corners are all within this of a stronger one's (output pixels, per
        /// coordinate) is the same quad.
        public var duplicateDistance: Double = 2
        public init() {}
    }

    /// A 3 × 3 local maximum: its cell and its sub-pixel position (a parabola through each
    /// axis' neighbours), in output pixels.
    struct Peak {
        var x: Int, y: Int
        var position: Point
        var value: Float
    }

    /// The quads in `heads` ([14][height][width], channel planes `height * width` apart),
    /// strongest first, in input pixels.
    public static func decode(_ heads: [Float], height: Int, width: Int, options: Options = Options()) -> [Candidate] {
        let plane = height * width
        precondition(heads.count >= channels * plane, "heads must hold 14 planes")
        func probabilities(_ channel: Int) -> [Float] {
            (0..<plane).map { (i: Int) -> Float in 1 / (1 + expf(-heads[channel * plane + i])) }
        }
        let cornerPeaks = (0..<4).map { peaks(probabilities(9 + $0), height: height, width: width,
                                               threshold: cornerPeakThreshold, limit: maximumCornerPeaks) }
        var found: [(corners: [Point], score: Float)] = []
        for centre in peaks(probabilities(0), height: height, width: width, threshold: options.threshold, limit: maximumCentrePeaks) {
            let cell = centre.y * width + centre.x
            let regressed = (0..<4).map { k in
                Point(x: Double(centre.x) + Double(heads[(1 + 2 * k) * plane + cell] * offsetScale),
                      y: Double(centre.y) + Double(heads[(2 + 2 * k) * plane + cell] * offsetScale))
            }
            let shortest = (0..<4).map { regressed[$0].distance(to: regressed[($0 + 1) % 4]) }.min()!
            let radius = Swift.max(options.snapRadius, options.snapFraction * shortest)
            var corners: [Point] = []
            for k in 0..<4 {
                var nearest = radius
                var snapped: Point?
                for peak in cornerPeaks[k] {
                    let d = peak.position.distance(to: regressed[k])
                    if d <= nearest { (nearest, snapped) = (d, peak.position) }
                }
                corners.append(snapped ?? regressed[k])
            }
            found.append((corners, centre.value))
        }
        var kept: [(corners: [Point], score: Float)] = []
        for quad in found where !kept.contains(where: { other in
            zip(quad.corners, other.corners).allSatisfy { abs($0.x - $1.x) <= options.duplicateDistance && abs($0.y - $1.y) <= options.duplicateDistance }
        }) {
            kept.append(quad)
        }
        let half = Double(stride - 1) / 2
        return kept.map { quad in
            Candidate(quad: Quad(corners: quad.corners.map { Point(x: $0.x * Double(stride) + half, y: $0.y * Double(stride) + half) }),
                      score: quad.score)
        }
    }

    /// The 3 × 3 local maxima of `map` (outside it counts as 0) of at least `threshold`, the
    /// `limit` strongest, strongest first (ties by position).
    static func peaks(_ map: [Float], height: Int, width: Int, threshold: Float, limit: Int) -> [Peak] {
        var found: [Peak] = []
        for y in 0..<height {
            for x in 0..<width {
                let v = map[y * width + x]
                guard v >= threshold else { continue }
                var isMaximum = true
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + dx, ny = y + dy
                        if nx >= 0, nx < width, ny >= 0, ny < height, map[ny * width + nx] > v { isMaximum = false }
                    }
                }
                guard isMaximum else { continue }
                found.append(Peak(x: x, y: y, position: refined(map, x: x, y: y, height: height, width: width), value: v))
            }
        }
        found.sort { $0.value != $1.value ? $0.value > $1.value : ($0.y, $0.x) < ($1.y, $1.x) }
        return Array(found.prefix(limit))
    }

    /// The peak at (x, y) moved by the vertex of the parabola through it and its neighbours on
    /// each axis (at most half a pixel; not at the map's border).
    static func refined(_ map: [Float], x: Int, y: Int, height: Int, width: Int) -> Point {
        func offset(_ before: Float, _ centre: Float, _ after: Float) -> Double {
            let curvature = before - 2 * centre + after
            guard curvature < 0 else { return 0 }
            return Swift.min(0.5, Swift.max(-0.5, Double(0.5 * (before - after) / curvature)))
        }
        let c = map[y * width + x]
        let dx = x > 0 && x < width - 1 ? offset(map[y * width + x - 1], c, map[y * width + x + 1]) : 0
        let dy = y > 0 && y < height - 1 ? offset(map[(y - 1) * width + x], c, map[(y + 1) * width + x]) : 0
        return Point(x: Double(x) + dx, y: Double(y) + dy)
    }
}
