import Foundation

/// Quad hypotheses from corners found across the whole image, not only within one voting
/// window's line group (`DetectQuads`).
///
/// Why: a picture's four sides are often not in one group. The whole-image group keeps the 40
/// strongest lines, which a textured background fills; a window holds a side only if the side
/// is long inside it. Forming quads from every line at once is out of reach (hundreds of
/// lines, the fourth power of that in hypotheses), so the hypotheses are walked from corners:
///
/// 1. A corner is where two lines cross at a rectangle's corner angle (90° ± the quadrature
///    tolerance and half the opposite sides' skew, as `DetectQuads`) and both run on edges
///    from it, each in one direction (its arm): an L of edge pixels, or a T (one line runs on
///    past the corner: a side along a shelf edge or a desk's grain) whose wedge between the arms
///    differs in colour from both sides (`isObjectCorner`).
/// 2. Two corners on one line whose arms face each other, with edges along most of the line
///    between them, are a side.
/// 3. Three corners joined by two sides fix all four lines of a quad (the fourth corner is
///    where the first and last lines meet, so a corner hidden by a hand or lost in glare is
///    still proposed). Each distinct set of four lines goes once through `DetectQuads`' own
///    gates and scoring.
///
/// The lines are every group's plus, from each voting region, three times its quota
/// (`DetectionParameters.Lines.cornerQuotaFactor`): on a brick wall the picture's sides were
/// lines 201-318 of 330. Measured on the development scenes (two mixed generator seeds and one
/// set per hard kind, 345 pictures and notes): 251 → 273 found, false positives unchanged, the
/// committed set unchanged (36 of 40); with the colour-checked Ts, 6 more notes. Held-out seeds
/// (3001-3009): 162 → 175 of 215, no false positives. The detector's median time on those
/// 1280x720 photos 23 → 40 ms (the longer lists' refits and support; `gpustyle bench`'s
/// plainer scenes +5-10 %).
enum DetectCorners {
    typealias Parameters = DetectionParameters.Corners

    /// One of a corner's two arms: along `line` from parameter `t`, towards `sign` (±1).
    struct Arm {
        let line: Int
        let t: Double
        let sign: Double
    }

    struct Corner {
        let arms: (Arm, Arm)
        /// One of the lines runs on past the corner.
        var isT = false
        func other(than line: Int) -> Arm { arms.0.line == line ? arms.1 : arms.0 }
    }

    /// `image`: the photo, for telling a T where one side lies along a background line from a
    /// T of background lines (`isObjectCorner`); without it only Ls are corners.
    static func run(_ lines: [DetectedLine], map: EdgeMap, image: Image? = nil, options: RectangleDetectionOptions) -> [QuadCandidate] {
        let minimumSide = DetectQuads.minimumSide(map, options: options)
        let corners = findCorners(lines, map: map, image: image, minimumSide: minimumSide, options: options)
        let next = sides(corners, lines: lines, minimumSide: minimumSide)
        // Chains corner → side → corner → side → corner; the set of four lines is the hypothesis.
        var seen: [LineSet: Int] = [:]
        var hypotheses: [LineSet] = []
        // Whether every chain found for the set passes a T corner.
        var throughT: [Bool] = []
        walk: for (c0, corner) in corners.enumerated() {
            for first in [corner.arms.0, corner.arms.1] {
                let closing = corner.other(than: first.line).line
                for c1 in next[c0][first.line] ?? [] {
                    let second = corners[c1].other(than: first.line)
                    for c2 in next[c1][second.line] ?? [] {
                        let third = corners[c2].other(than: second.line)
                        let set = LineSet(first.line, third.line, closing, second.line)
                        guard set.isValid else { continue }
                        let viaT = corner.isT || corners[c1].isT || corners[c2].isT
                        if let known = seen[set] {
                            if !viaT { throughT[known] = false }
                            continue
                        }
                        seen[set] = hypotheses.count
                        hypotheses.append(set)
                        throughT.append(viaT)
                        if hypotheses.count >= Parameters.maximumHypotheses { break walk }
                    }
                }
            }
        }
        return DetectQuads.collect(hypotheses.count) { h, found in
            let s = hypotheses[h]
            if var candidate = DetectQuads.makeCandidate(lines, s.a, s.b, s.c, s.d, map: map, minimumSide: minimumSide, options: options) {
                candidate.throughT = throughT[h]
                found.append(candidate)
            }
        }
    }

    /// Two pairs of opposite lines, (a, b) and (c, d), in `DetectQuads.makeCandidate`'s order,
    /// normalised so that the same quad from another start or direction is the same set.
    struct LineSet: Hashable {
        let a: Int, b: Int, c: Int, d: Int
        init(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            let p = (min(a, b), max(a, b)), q = (min(c, d), max(c, d))
            if p.0 < q.0 || (p.0 == q.0 && p.1 <= q.1) {
                (self.a, self.b, self.c, self.d) = (p.0, p.1, q.0, q.1)
            } else {
                (self.a, self.b, self.c, self.d) = (q.0, q.1, p.0, p.1)
            }
        }
        /// Four different lines (each pair is ordered, so a < b and c < d unless equal).
        var isValid: Bool { a != b && c != d && a != c && a != d && b != c && b != d }
    }

    static func findCorners(_ lines: [DetectedLine], map: EdgeMap, image: Image? = nil, minimumSide: Double,
                            options: RectangleDetectionOptions) -> [Corner] {
        let minimumCrossing = DetectQuads.minimumCrossing(options)
        let arm = max(Parameters.minimumArmLength, Parameters.armShare * minimumSide)
        // Coverage of the arm from parameter t towards sign, and of the stretch before it.
        func coverage(_ line: DetectedLine, from t: Double, sign: Double) -> (arm: Double, runOn: Double) {
            let a = t + sign * Parameters.armGap, b = t + sign * (Parameters.armGap + arm)
            let c = t - sign * Parameters.armGap, d = t - sign * (Parameters.armGap + arm)
            return (line.coverage(min(a, b), max(a, b)), line.coverage(min(c, d), max(c, d)))
        }
        var corners: [Corner] = []
        for i in lines.indices {
            for j in (i + 1)..<lines.count where DetectQuads.angleBetween(lines[i], lines[j]) >= minimumCrossing {
                guard let p = lines[i].intersection(lines[j]), map.holdsCorner(p) else { continue }
                let ti = lines[i].parameter(of: p), tj = lines[j].parameter(of: p)
                for si in [-1.0, 1.0] {
                    let ci = coverage(lines[i], from: ti, sign: si)
                    guard ci.arm >= Parameters.armCoverage else { continue }
                    for sj in [-1.0, 1.0] {
                        let cj = coverage(lines[j], from: tj, sign: sj)
                        guard cj.arm >= Parameters.armCoverage, min(ci.runOn, cj.runOn) <= Parameters.maximumRunOn else { continue }
                        // An L (neither line runs on), or a T whose inside differs from both its
                        // neighbours (a note's side along the desk's grain); not an X.
                        let isT = max(ci.runOn, cj.runOn) > Parameters.maximumRunOn
                        let corner = Corner(arms: (Arm(line: i, t: ti, sign: si), Arm(line: j, t: tj, sign: sj)), isT: isT)
                        if isT {
                            guard let image, isObjectCorner(corner, at: p, lines: lines, arm: arm, map: map, image: image) else { continue }
                        }
                        corners.append(corner)
                    }
                }
            }
        }
        return corners
    }

    /// Whether the wedge between a corner's arms differs in colour from the regions across each
    /// arm: true at an object's corner, whatever the lines do beyond it; false at a T of a brick
    /// wall (the two bricks beside the stem look alike). Colours are means of small patches of
    /// the full-resolution photo, `Parameters.wedgeDistance` arm lengths from the corner.
    static func isObjectCorner(_ corner: Corner, at p: Point, lines: [DetectedLine], arm: Double, map: EdgeMap,
                               image: Image) -> Bool {
        let ui = lines[corner.arms.0.line].direction * corner.arms.0.sign
        let uj = lines[corner.arms.1.line].direction * corner.arms.1.sign
        let r = Parameters.wedgeDistance * arm
        guard let inside = patch(p + (ui + uj) * r, map: map, image: image),
              let acrossI = patch(p + (ui - uj) * r, map: map, image: image),
              let acrossJ = patch(p + (uj - ui) * r, map: map, image: image) else { return false }
        return inside.distance(to: acrossI) >= Parameters.minimumWedgeContrast
            && inside.distance(to: acrossJ) >= Parameters.minimumWedgeContrast
    }

    /// Mean colour of the 5 x 5 photo pixels around working point q; nil outside the photo.
    static func patch(_ q: Point, map: EdgeMap, image: Image) -> MeanColour? {
        let c = map.toImage(q)
        let x0 = nearestInt(c.x) - 2, y0 = nearestInt(c.y) - 2
        guard x0 >= 0, y0 >= 0, x0 + 4 < image.width, y0 + 4 < image.height else { return nil }
        let plane = image.width * image.height
        var sum = MeanColour(r: 0, g: 0, b: 0)
        for y in y0...(y0 + 4) {
            for x in x0...(x0 + 4) {
                let k = y * image.width + x
                sum.r += Double(image.rgb[k]); sum.g += Double(image.rgb[plane + k]); sum.b += Double(image.rgb[2 * plane + k])
            }
        }
        return MeanColour(r: sum.r / 25, g: sum.g / 25, b: sum.b / 25)
    }

    /// For each corner and each of its lines, the corners its arm along that line reaches: the
    /// next corner's arm faces back, they are far enough apart, and edges cover the line
    /// between them as `DetectQuads` asks of a side.
    static func sides(_ corners: [Corner], lines: [DetectedLine], minimumSide: Double) -> [[Int: [Int]]] {
        var armsOnLine: [Int: [(corner: Int, arm: Arm)]] = [:]
        for (k, corner) in corners.enumerated() {
            armsOnLine[corner.arms.0.line, default: []].append((k, corner.arms.0))
            armsOnLine[corner.arms.1.line, default: []].append((k, corner.arms.1))
        }
        var next = [[Int: [Int]]](repeating: [:], count: corners.count)
        let shortest = Parameters.minimumSideShare * minimumSide
        for (line, arms) in armsOnLine {
            for from in arms {
                for to in arms where to.arm.sign == -from.arm.sign && from.corner != to.corner {
                    let length = (to.arm.t - from.arm.t) * from.arm.sign
                    guard length >= shortest,
                          lines[line].coverage(min(from.arm.t, to.arm.t), max(from.arm.t, to.arm.t)) >= DetectionParameters.Quads.minimumSideCoverage
                    else { continue }
                    next[from.corner][line, default: []].append(to.corner)
                }
            }
        }
        return next
    }
}
