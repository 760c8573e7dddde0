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
///    from it, each in one direction (its arm): an L of edge pixels.
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
/// committed set unchanged (36 of 40); the detector's median time on those 1280x720 photos
/// 23 → 40 ms (the longer lists' refits and support; `gpustyle bench`'s plainer scenes +5-10 %).
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
        func other(than line: Int) -> Arm { arms.0.line == line ? arms.1 : arms.0 }
    }

    static func run(_ lines: [DetectedLine], map: EdgeMap, options: RectangleDetectionOptions) -> [QuadCandidate] {
        let shortSide = Double(min(map.width, map.height))
        let minimumSide = max(8, options.minimumSize * shortSide)
        let corners = findCorners(lines, map: map, minimumSide: minimumSide, options: options)
        let next = sides(corners, lines: lines, minimumSide: minimumSide)
        // Chains corner → side → corner → side → corner; the set of four lines is the hypothesis.
        var seen = Set<LineSet>()
        var hypotheses: [LineSet] = []
        walk: for (c0, corner) in corners.enumerated() {
            for first in [corner.arms.0, corner.arms.1] {
                let closing = corner.other(than: first.line).line
                for c1 in next[c0][first.line] ?? [] {
                    let second = corners[c1].other(than: first.line)
                    for c2 in next[c1][second.line] ?? [] {
                        let third = corners[c2].other(than: second.line)
                        let set = LineSet(first.line, third.line, closing, second.line)
                        guard set.isValid, seen.insert(set).inserted else { continue }
                        hypotheses.append(set)
                        if hypotheses.count >= Parameters.maximumHypotheses { break walk }
                    }
                }
            }
        }
        return DetectQuads.collect(hypotheses.count) { h, found in
            let s = hypotheses[h]
            if let candidate = DetectQuads.makeCandidate(lines, s.a, s.b, s.c, s.d, map: map, minimumSide: minimumSide, options: options) {
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
        var isValid: Bool { Set([a, b, c, d]).count == 4 }
    }

    static func findCorners(_ lines: [DetectedLine], map: EdgeMap, minimumSide: Double,
                            options: RectangleDetectionOptions) -> [Corner] {
        let minimumCrossing = 90 - options.quadratureTolerance - DetectionParameters.Quads.maximumOppositeSkew / 2
        let arm = max(Parameters.minimumArmLength, Parameters.armShare * minimumSide)
        let margin = DetectionParameters.Quads.borderMargin
        // Coverage of the arm from parameter t towards sign, and of the stretch before it.
        func coverage(_ line: DetectedLine, from t: Double, sign: Double) -> (arm: Double, runOn: Double) {
            let a = t + sign * Parameters.armGap, b = t + sign * (Parameters.armGap + arm)
            let c = t - sign * Parameters.armGap, d = t - sign * (Parameters.armGap + arm)
            return (line.coverage(min(a, b), max(a, b)), line.coverage(min(c, d), max(c, d)))
        }
        var corners: [Corner] = []
        for i in lines.indices {
            for j in (i + 1)..<lines.count where DetectQuads.angleBetween(lines[i], lines[j]) >= minimumCrossing {
                guard let p = lines[i].intersection(lines[j]),
                      p.x >= -margin, p.y >= -margin,
                      p.x <= Double(map.width - 1) + margin, p.y <= Double(map.height - 1) + margin else { continue }
                let ti = lines[i].parameter(of: p), tj = lines[j].parameter(of: p)
                for si in [-1.0, 1.0] {
                    let ci = coverage(lines[i], from: ti, sign: si)
                    guard ci.arm >= Parameters.armCoverage else { continue }
                    for sj in [-1.0, 1.0] {
                        let cj = coverage(lines[j], from: tj, sign: sj)
                        // An L: neither line runs on (a brick wall's mortar makes Ts and Xs).
                        guard cj.arm >= Parameters.armCoverage, max(ci.runOn, cj.runOn) <= Parameters.maximumRunOn else { continue }
                        corners.append(Corner(arms: (Arm(line: i, t: ti, sign: si), Arm(line: j, t: tj, sign: sj))))
                    }
                }
            }
        }
        return corners
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
