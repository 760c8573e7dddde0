/// A convex combination of the network's 26 styles (`--style 3:0.5,12:0.5`).
public struct StyleMix: Sendable, Equatable, CustomStringConvertible {
    /// One weight per style, summing to 1.
    public let weights: [Float]

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(style: Int) throws {
        try self.init(components: [(style, 1)])
    }

    /// Parses `N`, or `N:w,M:v,...` (weights are normalised to sum to 1).
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var components: [(Int, Float)] = []
        for part in parts {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 1 || fields.count == 2, let index = Int(fields[0].trimmingCharacters(in: .whitespaces)) else {
                throw ParseError(description: "malformed style '\(text)': expected N or N:weight,M:weight (e.g. 3:0.5,12:0.5)")
            }
            var weight: Float = 1
            if fields.count == 2 {
                guard let w = Float(fields[1].trimmingCharacters(in: .whitespaces)), w.isFinite, w >= 0 else {
                    throw ParseError(description: "malformed style weight '\(fields[1])' in '\(text)': expected a number >= 0")
                }
                weight = w
            }
            components.append((index, weight))
        }
        try self.init(components: components, text: text)
    }

    /// The largest weight accepted for one style (weights are relative: 1 and 3 mean 25% and
    /// 75%).
    public static let maximumWeight: Float = 1_000_000

    private init(components: [(Int, Float)], text: String = "") throws {
        var weights = [Float](repeating: 0, count: StyleNetwork.styleCount)
        for (index, weight) in components {
            guard (0..<StyleNetwork.styleCount).contains(index) else {
                throw ParseError(description: "style \(index) is out of range: styles are 0 to \(StyleNetwork.styleCount - 1)")
            }
            weights[index] += weight
        }
        let total = weights.reduce(0, +)
        // Finite weights near Float's limit overflow when summed (3e38 + 3e38 = inf, and every
        // weight / inf = 0: a grey image, not a blend); weights are relative, so a bound far
        // above any useful ratio rules that out.
        guard weights.allSatisfy({ $0 <= Self.maximumWeight }), total.isFinite else {
            throw ParseError(description: "style weights must be at most \(Int(Self.maximumWeight)) (got '\(text)')")
        }
        guard total > 0 else { throw ParseError(description: "style weights sum to zero") }
        self.weights = weights.map { $0 / total }
    }

    public var description: String {
        weights.enumerated().filter { $0.element > 0 }
            .map { weights.filter { $0 > 0 }.count == 1 ? "\($0.offset)" : "\($0.offset):\($0.element)" }
            .joined(separator: ",")
    }
}
