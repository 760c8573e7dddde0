/// SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators",
/// OOPSLA 2014): a 64-bit counter passed through a mixing function. Used where a result must
/// not change from run to run (RANSAC samples), so tests and bug reports reproduce.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<bound (bound > 0), by the multiply-shift reduction of the top 32 bits;
    /// the bias is below bound / 2³², nothing for sample indices. Spelled out rather than
    /// `Int.random(in:using:)` so the sequence cannot change with the standard library.
    mutating func index(below bound: Int) -> Int {
        precondition(bound > 0 && bound <= Int(UInt32.max), "bound out of range")
        return Int(((next() >> 32) &* UInt64(bound)) >> 32)
    }
}
