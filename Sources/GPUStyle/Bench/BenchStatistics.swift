/// Summaries of timed runs, shared by the bench's tables and the peer scripts' reading of them.
public enum BenchStatistics {
    /// The median of sorted times (the mean of the middle two for an even count, as Python's
    /// statistics.median, so peer scripts and the bench agree on what "median" means).
    public static func median(_ sorted: [Double]) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// The 95th percentile of sorted times (the largest of fewer than 20 runs).
    public static func percentile95(_ sorted: [Double]) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
    }
}

/// Plain-text tables for the bench and profile reports.
public enum TextTable {
    /// Left-aligns the first two columns and right-aligns the others, two spaces apart.
    public static func format(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == row.count - 1 { return cell }
                return column < 2 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
    }
}
