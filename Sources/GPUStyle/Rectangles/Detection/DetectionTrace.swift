import Foundation

/// What the detector saw on the way to its observations, in input-image pixels (centres at
/// integers): the lines it found and the groups quads were formed in, every quad candidate with
/// its sides' edge coverage, and the picks before their sides were moved out and refined. It
/// tells where a missed rectangle was lost (`tools/diagnose_rectangles.py`).
public struct DetectionTrace: Sendable {
    /// `x cos θ + y sin θ = ρ`.
    public struct Line: Sendable {
        public var theta: Double
        public var rho: Double
    }

    public struct Candidate: Sendable {
        /// Top-left, top-right, bottom-right, bottom-left as formed (before canonical ordering).
        public var corners: [Point]
        /// Edge coverage of the sides corner 0→1, 1→2, 2→3, 3→0.
        public var coverage: [Double]
        public var score: Double
    }

    /// Working-map downscale factor.
    public var scale = 1
    public var lines: [Line] = []
    /// Indices into `lines`, one list per group (`DetectLines`).
    public var groups: [[Int]] = []
    public var candidates: [Candidate] = []
    /// The chosen candidates (`RectangleDetector.select`), best first.
    public var picks: [Candidate] = []

    init() {}

    init(map: EdgeMap, groups: DetectLines.Groups, candidates: [QuadCandidate], picks: [QuadCandidate]) {
        scale = map.scale
        lines = groups.lines.map { Self.imageLine($0, scale: map.scale) }
        self.groups = groups.members
        self.candidates = candidates.map { Self.candidate($0, map: map) }
        self.picks = picks.map { Self.candidate($0, map: map) }
    }

    /// A working-map line in image pixels: working x = (X + 0.5) / s - 0.5 (`EdgeMap.toImage`),
    /// so ρ' = s ρ + (s - 1)(cos θ + sin θ) / 2.
    static func imageLine(_ line: DetectedLine, scale: Int) -> Line {
        let s = Double(scale)
        return Line(theta: line.theta, rho: s * line.rho + (s - 1) * (line.cosTheta + line.sinTheta) / 2)
    }

    private static func candidate(_ c: QuadCandidate, map: EdgeMap) -> Candidate {
        Candidate(corners: c.quad.corners.map { map.toImage($0) }, coverage: c.coverage, score: c.score)
    }

    /// The trace as JSON: {"scale", "lines": [[θ, ρ]], "groups": [[i]], "candidates" and
    /// "picks": [{"corners": [[x, y] x 4], "coverage": [4], "score"}]}.
    public func json() throws -> Data {
        func encode(_ c: Candidate) -> [String: Any] {
            ["corners": c.corners.map { [$0.x, $0.y] }, "coverage": c.coverage, "score": c.score]
        }
        let object: [String: Any] = [
            "scale": scale,
            "lines": lines.map { [$0.theta, $0.rho] },
            "groups": groups,
            "candidates": candidates.map(encode),
            "picks": picks.map(encode),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// Writes `json()` to `path` by `OutputPath`'s rules (a file is replaced atomically).
    public func write(to path: String) throws {
        try OutputPath(path).write(try json())
    }
}
