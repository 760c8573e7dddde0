/// Numbers written with a unit suffix, as on command lines: "1.5G", "24MP", "800000000".
public enum ScaledNumber {
    /// `text` as a number times the scale of the first of `units`
    /// whose suffix it ends with (case-insensitive; list longer suffixes first), or times 1
    /// without a suffix; nil when the rest is not a number.
    public static func parse(_ text: String, units: [(suffix: String, scale: Double)]) -> Double? {
        let upper = text.uppercased()
        let unit = units.first { upper.hasSuffix($0.suffix.uppercased()) }
        return Double(unit.map { String(upper.dropLast($0.suffix.count)) } ?? upper).map { $0 * (unit?.scale ?? 1) }
    }
}
