import Foundation

/// Byte counts for messages.
public enum ByteCount {
    /// Decimal units with one decimal from 1 kB up: "4.6 GB", "512.0 MB", "900 bytes".
    public static func decimal(_ bytes: Int) -> String {
        let units = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (size, unit) in units where Double(bytes) >= size {
            return String(format: "%.1f %@", Double(bytes) / size, unit)
        }
        return "\(bytes) bytes"
    }

    /// Exact binary units when the count is a whole number of them: "1 GiB", "64 KiB"; else bytes.
    public static func binary(_ bytes: Int) -> String {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes >= 1 << shift {
            if bytes % (1 << shift) == 0 { return "\(bytes >> shift) \(unit)" }
        }
        return "\(bytes) bytes"
    }
}
