/// Whether a quad's sides run on past its corners: a framed picture's outline ends at its
/// corners (its sides meet as Ls), where a block of wall tiles, a window's panes or a grid of
/// posters is cut out of longer lines (Ts and Xs). On issue 35's busy-wall clips both false starts
/// the detector made before the picture came into view were 2 x 2 blocks of tiles.
///
/// Each side is continued past both its corners, and the frame's contrast along each of these 8
/// continuations is compared with the contrast along the side itself. Contrast at a point is the
/// largest gray difference between the point and the points `probe` pixels to either side of the
/// line (a step edge and a thin line, such as grout, both count), best of three positions across
/// the line (a detection is a pixel or two off); a stretch's contrast is the median over its samples.
public struct OutlineRunOn: Sendable {
    /// Each continuation starts this share of its side's length past the corner (and at least
    /// `minimumGap` pixels: a corner's own blur and a frame's rounded corner are skipped)...
    public var gap = 0.04
    public var minimumGap = 3.0
    /// ...and reaches this share of the side's length further.
    public var reach = 0.25
    /// Pixels from the line to the points it is compared with.
    public var probe = 3.0
    /// A continuation whose contrast is at least this share of its side's runs on.
    public var ratio = 0.5
    /// Samples along a side and along a continuation.
    static let sideSamples = 24
    static let runSamples = 10

    public init() {}

    /// How many of the quad's 8 side continuations run on, and how many could be measured (in
    /// view, along a side with some contrast).
    public func count(_ quad: Quad, in frame: Image) -> (runOn: Int, measured: Int) {
        guard frame.width > 2, frame.height > 2 else { return (0, 0) }
        let gray = Gray(frame)
        var count = 0, measured = 0
        for i in 0..<4 {
            let a = quad.corners[i], b = quad.corners[(i + 1) % 4]
            let length = a.distance(to: b)
            guard length > 1 else { continue }
            let along = (b - a) * (1 / length), across = Point(x: -along.y, y: along.x)
            let side = median((0..<Self.sideSamples).map { k in
                gray.contrast(at: a + (b - a) * (0.1 + 0.8 * Double(k) / Double(Self.sideSamples - 1)), across: across, probe: probe)
            })
            guard side > 1e-3 else { continue }
            let start = max(minimumGap, gap * length), span = reach * length
            for (corner, outward) in [(b, along), (a, along * -1)] {
                let run = (0..<Self.runSamples).compactMap { k -> Double? in
                    let p = corner + outward * (start + span * Double(k) / Double(Self.runSamples - 1))
                    return gray.contains(p, margin: probe + 2) ? gray.contrast(at: p, across: across, probe: probe) : nil
                }
                guard run.count >= Self.runSamples / 2 else { continue }
                measured += 1
                if median(run) >= ratio * side { count += 1 }
            }
        }
        return (count, measured)
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Bilinear luma samples of an RGB image (`DetectRefine.luma`).
    private struct Gray {
        let frame: Image

        init(_ frame: Image) { self.frame = frame }

        func contains(_ p: Point, margin: Double) -> Bool {
            p.x >= margin && p.y >= margin && p.x <= Double(frame.width - 1) - margin && p.y <= Double(frame.height - 1) - margin
        }

        func value(_ p: Point) -> Double { DetectRefine.luma(frame, p) }

        /// The largest difference between a point near `p` (on the line, or 1.5 px to either
        /// side of it) and the points `probe` pixels away across the line.
        func contrast(at p: Point, across n: Point, probe: Double) -> Double {
            [-1.5, 0, 1.5].map { shift in
                let c = p + n * shift, centre = value(c)
                return max(abs(value(c + n * probe) - centre), abs(value(c - n * probe) - centre))
            }.max() ?? 0
        }
    }
}
