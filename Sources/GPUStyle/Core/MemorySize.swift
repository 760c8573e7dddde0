import Foundation

/// Byte counts as people write them: "1G", "512M", "1.5GiB", "800000000".
public enum MemorySize {
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses a size with an optional binary suffix (K, M, G, T, with or without "B"/"iB";
    /// 1K = 1024 bytes, as `free -h` and cgroup files count).
    public static func parse(_ text: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var number = Substring(trimmed), multiplier = 1.0
        let units: [(String, Double)] = [("T", 0x1p40), ("G", 0x1p30), ("M", 0x1p20), ("K", 0x1p10)]
        for suffix in ["iB", "B"] where number.uppercased().hasSuffix(suffix.uppercased()) {
            number = number.dropLast(suffix.count)
            break
        }
        if let last = number.last.map({ String($0).uppercased() }), let unit = units.first(where: { $0.0 == last }) {
            multiplier = unit.1
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value > 0, value * multiplier < 0x1p62 else {
            throw ParseError(description: "\"\(text)\" is not a memory size (examples: 800M, 1G, 1.5G)")
        }
        return Int(value * multiplier)
    }
}
