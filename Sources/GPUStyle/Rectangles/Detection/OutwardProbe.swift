import Foundation

/// A line parallel to a quad's side, some pixels outside it, and how much of it runs on edges:
/// how the band and stuck-side stages look for the next edge out.
struct OutwardProbe {
    let p0: Point
    let p1: Point
    let coverage: Double
    let offset: Double

    enum Verdict { case take, skip, stop }

    /// Steps a probe out from side a→b of a clockwise quad, 1 px at a time from offset `first`
    /// through `last`, each offset also tilted by `tilts` (pivoting about the side's midpoint:
    /// perspective narrows a band along the side). Returns the first probe on which pixels that
    /// `accepts` cover at least `minimum` of the steps (`EdgeMap.coverage`) and that `verdict`
    /// takes; nil when none does, or as soon as `verdict` says stop.
    static func first(from a: Point, to b: Point, offsets first: Double, through last: Double, tilts: [Double] = [0, -0.03, 0.03],
                      minimum: Double, map: EdgeMap, accepts: (Int) -> Bool, verdict: (OutwardProbe) -> Verdict) -> OutwardProbe? {
        let n = DetectBands.outward(a, b)
        let half = (b - a) * 0.5, length = a.distance(to: b)
        var offset = first
        while offset <= last {
            for tilt in tilts {
                let mid = a + half + n * offset
                let p0 = mid - half + n * (tilt * length * 0.5), p1 = mid + half - n * (tilt * length * 0.5)
                let coverage = map.coverage(from: p0, to: p1, across: n, minimum: minimum, accepts: accepts)
                guard coverage >= minimum else { continue }
                let probe = OutwardProbe(p0: p0, p1: p1, coverage: coverage, offset: offset)
                switch verdict(probe) {
                case .take: return probe
                case .skip: continue
                case .stop: return nil
                }
            }
            offset += 1
        }
        return nil
    }
}
