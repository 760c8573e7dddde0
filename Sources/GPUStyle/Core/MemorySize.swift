import Foundation

/// Byte counts as people write them: "1G", "512M", "1.5GiB", "800000000".
public enum MemorySize {
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses a size with an optional binary suffix (K, M, G, T, with or without "B"/"iB";
    /// 1K = 1024 bytes, as `free -h` and cgroup files count).
    public static func parse(_ text: String) throws -> Int {
        guard let bytes = ScaledNumber.parse(text.trimmingCharacters(in: .whitespaces), units: units), bytes.isFinite, bytes > 0, bytes < 0x1p62 else {
            throw ParseError(description: "\"\(text)\" is not a memory size (examples: 800M, 1G, 1.5G)")
        }
        return Int(bytes)
    }

    private static let units: [(suffix: String, scale: Double)] = [
        ("TiB", 0x1p40), ("GiB", 0x1p30), ("MiB", 0x1p20), ("KiB", 0x1p10),
        ("TB", 0x1p40), ("GB", 0x1p30), ("MB", 0x1p20), ("KB", 0x1p10),
        ("T", 0x1p40), ("G", 0x1p30), ("M", 0x1p20), ("K", 0x1p10), ("B", 1),
    ]
}
