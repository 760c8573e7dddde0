/// What the tracked picture looks like: a small gray image of its inside, rectified from a frame
/// where a detection found it. `LivePipeline` checks every tracked quad against it (is the quad
/// still on the picture, or on the wall the tracker slid onto?) and uses it to tell the same
/// picture from another one when a detection comes back after a loss.
///
/// The picture is sampled on a `side` x `side` grid over the quad's inside, inset by `inset` of
/// each side so that the frame around a framed picture (dark, and the same on every framed
/// picture) is left out: what is compared is the photo. Each grid sample averages the frame over
/// its footprint (up to 4 x 4 bilinear taps), so the template is a low-pass view that motion
/// blur and a few pixels of tracking error change little.
///
/// The score is the lower quartile (`quantile`), over the grid's `cells` x `cells` cells, of the
/// zero-mean normalised cross-correlation (ZNCC) of the cell with the template's cell. Per cell,
/// ZNCC ignores a change of gain and offset (light and exposure changes, a shadow's gradient
/// across the picture); the lower quartile ignores the few cells a hand covers (up to 14 % of the
/// picture on the committed clip) but not a quarter of the picture out of place: with the median,
/// a quad whose top corners were 14 px off (its bottom ones right) still scored 0.95. Cells mostly outside the frame, or flat in the
/// template (nothing to compare), are left out; with fewer than `minimumCells` left the score is
/// nil (cannot tell).
public struct PictureTemplate: Sendable {
    /// Grid samples per side.
    public static let side = 40
    /// Share of each side left out around the picture's inside (the frame of a framed picture:
    /// the generator's frames are 4-9 % of the picture's width).
    public static let inset = 0.1
    /// Cells per side (each `side / cells` samples square).
    public static let cells = 4
    /// A cell needs this share of its samples inside the frame.
    static let minimumInsideShare = 0.75
    /// A template cell flatter than this (standard deviation of intensities in [0, 1]) is not
    /// compared: its correlation would be noise.
    static let flatCell: Float = 0.015
    /// The score is this quantile of the cells' correlations (rounded down).
    static let quantile = 0.25
    /// Fewest cells for a score.
    public static let minimumCells = 4

    /// `side` x `side` samples, row-major (nil where the sample fell outside the frame).
    let samples: [Float]
    let inside: [Bool]

    /// The template of `quad` in `frame`, or nil when too little of it is inside the frame.
    public init?(frame: Image, quad: Quad) {
        guard let (samples, inside) = Self.sample(frame, quad: quad) else { return nil }
        guard Double(inside.filter { $0 }.count) >= Self.minimumInsideShare * Double(inside.count) else { return nil }
        self.samples = samples
        self.inside = inside
    }

    /// How much `quad` in `frame` looks like the template: -1...1, nil when it cannot tell.
    /// `smoothing` > 0 compares both views box-blurred over (2 smoothing + 1)² samples: what
    /// is left is the picture's coarse layout, which tells the picture from another one as well
    /// (other pictures still score below 0) but no longer cares how blurred the frame is or
    /// where exactly the quad is (re-identification, not alignment).
    public func score(frame: Image, quad: Quad, smoothing: Int = 0) -> Double? {
        guard var (current, inside) = Self.sample(frame, quad: quad) else { return nil }
        var samples = self.samples
        if smoothing > 0 {
            current = Self.boxBlur(current, inside: inside, radius: smoothing)
            samples = Self.boxBlur(samples, inside: self.inside, radius: smoothing)
            inside = zip(inside, self.inside).map { $0 && $1 }
        }
        let cellSide = Self.side / Self.cells
        var scores: [Double] = []
        // One pair of buffers for every cell: this runs on every tracked frame.
        var a: [Float] = [], b: [Float] = []
        a.reserveCapacity(cellSide * cellSide)
        b.reserveCapacity(cellSide * cellSide)
        for cy in 0..<Self.cells {
            for cx in 0..<Self.cells {
                a.removeAll(keepingCapacity: true)
                b.removeAll(keepingCapacity: true)
                for y in cy * cellSide..<(cy + 1) * cellSide {
                    for x in cx * cellSide..<(cx + 1) * cellSide {
                        let i = y * Self.side + x
                        if inside[i] && self.inside[i] { a.append(samples[i]); b.append(current[i]) }
                    }
                }
                guard Double(a.count) >= Self.minimumInsideShare * Double(cellSide * cellSide),
                      let ncc = Self.zncc(a, b) else { continue }
                scores.append(ncc)
            }
        }
        guard scores.count >= Self.minimumCells else { return nil }
        scores.sort()
        return scores[Int(Self.quantile * Double(scores.count - 1))]
    }

    /// The mean of each sample's (2 radius + 1)² neighbourhood, over the neighbours inside.
    static func boxBlur(_ values: [Float], inside: [Bool], radius: Int) -> [Float] {
        var out = values
        for y in 0..<side {
            for x in 0..<side where inside[y * side + x] {
                var sum: Float = 0, count = 0
                for ny in max(0, y - radius)...min(side - 1, y + radius) {
                    for nx in max(0, x - radius)...min(side - 1, x + radius) where inside[ny * side + nx] {
                        sum += values[ny * side + nx]
                        count += 1
                    }
                }
                out[y * side + x] = sum / Float(count)
            }
        }
        return out
    }

    /// ZNCC of two equally long sample lists; nil when the template's (`a`) is flat.
    static func zncc(_ a: [Float], _ b: [Float]) -> Double? {
        let n = Double(a.count)
        guard n > 1 else { return nil }
        var sa = 0.0, sb = 0.0
        for i in a.indices { sa += Double(a[i]); sb += Double(b[i]) }
        let ma = sa / n, mb = sb / n
        var saa = 0.0, sbb = 0.0, sab = 0.0
        for i in a.indices {
            let da = Double(a[i]) - ma, db = Double(b[i]) - mb
            saa += da * da
            sbb += db * db
            sab += da * db
        }
        guard (saa / n).squareRoot() >= Double(flatCell) else { return nil }
        // A flat current cell (the picture blurred away, or a plain wall) correlates with nothing.
        guard sbb > 1e-12 else { return 0 }
        return sab / (saa * sbb).squareRoot()
    }

    /// The grid's gray samples and which fell inside the frame; nil for a quad the homography
    /// cannot map.
    static func sample(_ frame: Image, quad: Quad) -> (samples: [Float], inside: [Bool])? {
        let lo = inset, hi = 1 - inset
        let unit = [Point(x: lo, y: lo), Point(x: hi, y: lo), Point(x: hi, y: hi), Point(x: lo, y: hi)]
        guard frame.width > 1, frame.height > 1,
              let toFrame = try? Homography(from: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)],
                                            to: quad.corners),
              unit.allSatisfy({ toFrame.denominator(at: $0) > 0 }) else { return nil }
        // Footprint of one grid step in frame pixels: the longer of the inset quad's mean sides over the grid.
        let c = unit.map { toFrame.apply($0) }
        let across = (c[0].distance(to: c[1]) + c[3].distance(to: c[2])) / 2
        let down = (c[0].distance(to: c[3]) + c[1].distance(to: c[2])) / 2
        let footprint = max(across, down) / Double(side)
        let taps = min(4, max(1, Int((footprint / 1.5).rounded(.up))))
        let plane = frame.width * frame.height
        let maxX = Double(frame.width - 1), maxY = Double(frame.height - 1)
        var samples = [Float](repeating: 0, count: side * side)
        var inside = [Bool](repeating: false, count: side * side)
        let step = (hi - lo) / Double(side)
        for gy in 0..<side {
            for gx in 0..<side {
                var sum: Float = 0
                var count = 0
                for ty in 0..<taps {
                    for tx in 0..<taps {
                        let u = lo + step * (Double(gx) + (Double(tx) + 0.5) / Double(taps))
                        let v = lo + step * (Double(gy) + (Double(ty) + 0.5) / Double(taps))
                        let p = toFrame.apply(Point(x: u, y: v))
                        guard p.x >= 0, p.y >= 0, p.x <= maxX, p.y <= maxY else { continue }
                        let x0 = min(Int(p.x), frame.width - 2), y0 = min(Int(p.y), frame.height - 2)
                        let fx = Float(p.x - Double(x0)), fy = Float(p.y - Double(y0))
                        let i = y0 * frame.width + x0
                        func luma(_ j: Int) -> Float {
                            0.299 * frame.rgb[j] + 0.587 * frame.rgb[plane + j] + 0.114 * frame.rgb[2 * plane + j]
                        }
                        let top = luma(i) + fx * (luma(i + 1) - luma(i))
                        let bottom = luma(i + frame.width) + fx * (luma(i + frame.width + 1) - luma(i + frame.width))
                        sum += top + fy * (bottom - top)
                        count += 1
                    }
                }
                // A sample counts as inside when most of its taps are.
                if 2 * count > taps * taps {
                    samples[gy * side + gx] = sum / Float(count)
                    inside[gy * side + gx] = true
                }
            }
        }
        return (samples, inside)
    }
}
