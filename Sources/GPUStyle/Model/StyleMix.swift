/// A convex combination of the network's 26 styles (`--style 3:0.5,12:0.5`), and of paintings
/// (`--style-image a.jpg:0.7`): each painting is its style vector for Magenta's arbitrary-style
/// network (`ArbitraryStyle`).
///
/// Paintings blend among themselves by their style vectors (the blended vector drives one run
/// of the arbitrary network, as Ghiasi et al. interpolate styles); built-in styles blend by
/// their norm parameters (one run of the 26-style network). A mix of both runs each network
/// once and mixes the two pictures by their shares (`builtInShare`): the two networks share no
/// parameters to blend.
public struct StyleMix: Sendable, Equatable, CustomStringConvertible {
    /// One weight per built-in style, summing to 1 (all 0 when the mix is only paintings).
    public let weights: [Float]
    /// The paintings, each with its share of the whole mix.
    public private(set) var paintings: [Painting] = []

    /// A painting's style vector and its share of the mix.
    public struct Painting: Sendable, Equatable {
        /// What the user named (a file name), for messages and descriptions.
        public let name: String
        public let vector: [Float]
        public let share: Float
        public init(name: String, vector: [Float], share: Float) {
            self.name = name
            self.vector = vector
            self.share = share
        }
    }

    /// The built-in styles' share of the mix: 1 without paintings, 0 with paintings only.
    public var builtInShare: Float { paintings.isEmpty ? 1 : max(0, 1 - paintings.reduce(0) { $0 + $1.share }) }

    /// The paintings' blended style vector (their shares renormalised), nil without paintings.
    public var paintingVector: [Float]? {
        guard let first = paintings.first else { return nil }
        let total = paintings.reduce(0) { $0 + $1.share }
        var vector = [Float](repeating: 0, count: first.vector.count)
        for painting in paintings {
            for i in vector.indices { vector[i] += painting.share / total * painting.vector[i] }
        }
        return vector
    }

    /// The built-in part alone (weights summing to 1), nil when the mix has none.
    public var builtInPart: StyleMix? {
        guard weights.contains(where: { $0 > 0 }) else { return nil }
        return paintings.isEmpty ? self : StyleMix(weights: weights)
    }

    private init(weights: [Float]) { self.weights = weights }

    /// A mix of built-in styles (`builtIn`, as `--style` writes them: `3`, `3:2,12:1`; nil for
    /// none) and paintings (`vector`, weight): weights are relative over both lists, so `3` with
    /// one unweighted painting is half each, and `3:2` counts its weights' sum.
    public init(builtIn text: String?, paintings: [(name: String, vector: [Float], weight: Float)]) throws {
        let lengths = Set(paintings.map(\.vector.count))
        guard lengths.count <= 1 else { throw ParseError(description: "style vectors of different lengths cannot be blended") }
        let components = try text.map(Self.components(parsing:)) ?? []
        let builtIn = try text.map { try StyleMix(components: components, text: $0) }
        let builtInWeight = components.reduce(0) { $0 + $1.1 }
        let weights = paintings.map(\.weight) + [builtInWeight]
        guard weights.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= Self.maximumWeight }) else {
            throw ParseError(description: "style weights must be numbers from 0 to \(Int(Self.maximumWeight))")
        }
        let total = weights.reduce(0, +)
        guard total > 0 else { throw ParseError(description: "style weights sum to zero") }
        self.weights = builtIn?.weights ?? [Float](repeating: 0, count: StyleNetwork.styleCount)
        self.paintings = paintings.filter { $0.weight > 0 }.map { .init(name: $0.name, vector: $0.vector, share: $0.weight / total) }
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(style: Int) throws {
        try self.init(components: [(style, 1)])
    }

    /// Parses `N`, or `N:w,M:v,...` (weights are normalised to sum to 1).
    public init(parsing text: String) throws {
        try self.init(components: Self.components(parsing: text), text: text)
    }

    /// The (style, weight) pairs of `N` or `N:w,M:v,...`, weights as written.
    static func components(parsing text: String) throws -> [(Int, Float)] {
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
        return components
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

    /// `3`, `3:0.5,12:0.5`; paintings as `name#digest:share` (the digest, the first 8 hex digits
    /// of the vector's SHA-256, tells resumed runs when a painting's vector changed).
    public var description: String {
        let builtIn = weights.enumerated().filter { $0.element > 0 }
        let single = builtIn.count == 1 && paintings.isEmpty
        let parts = builtIn.map { single ? "\($0.offset)" : "\($0.offset):\($0.element * builtInShare)" }
            + paintings.map { "\($0.name)#\(Self.digest($0.vector)):\($0.share)" }
        return parts.joined(separator: ",")
    }

    static func digest(_ vector: [Float]) -> String {
        var hash = SHA256()
        vector.withUnsafeBytes { hash.update($0) }
        return String(hash.finalize().prefix(8))
    }
}
