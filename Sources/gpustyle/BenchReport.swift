import Foundation
import GPUStyle

/// Formats bench results for people (a table) and for scripts (JSON).
struct BenchReport {
    let paths: [BenchPath]
    let results: [BenchResult]
    var rectangles: [RectangleBench.Row] = []

    func table() -> String {
        var lines: [String] = []
        if !results.isEmpty || paths.contains(where: { $0.error != nil }) { lines += networkTable() }
        if !rectangles.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines += rectangleTable()
        }
        return lines.joined(separator: "\n")
    }

    private func networkTable() -> [String] {
        var lines: [String] = []
        for path in paths {
            if let error = path.error {
                lines.append("\(path.label): unavailable (\(error))")
            } else {
                lines.append(String(format: "%@: %@ (setup %.0f ms)", path.label, path.device, path.setupSeconds * 1000))
            }
        }
        lines.append("")
        var rows = [["size", "path", "first ms", "min ms", "median ms", "p95 ms", "img/s", "GFLOP/s", "vs cpu", "parity vs first path"]]
        for result in results {
            let cpu = results.first { $0.path == "cpu" && $0.width == result.width && $0.height == result.height }
            let ratio = cpu.map { String(format: "%.2fx", result.median / $0.median) } ?? "-"
            let parity = result.parity.map { String(format: "max|d| %.1e, PSNR %.1f dB", $0.maxAbsDiff, $0.psnr) } ?? "-"
            rows.append(["\(result.width)x\(result.height)", result.path,
                         String(format: "%.1f", result.firstSeconds * 1000), String(format: "%.1f", result.minimum * 1000),
                         String(format: "%.1f", result.median * 1000), String(format: "%.1f", result.p95 * 1000),
                         String(format: "%.2f", 1 / result.median), String(format: "%.1f", result.gflops), ratio, parity])
        }
        return lines + TextTable.format(rows)
    }

    private func rectangleTable() -> [String] {
        var table = [["work", "size", "path", "min ms", "median ms", "p95 ms", "vs cpu", "parity vs cpu"]]
        for row in rectangles {
            let cpu = rectangles.first { $0.work == row.work && $0.size == row.size && $0.path == "cpu" }
            table.append([row.work, row.size, row.path, String(format: "%.2f", row.seconds.first! * 1000),
                          String(format: "%.2f", row.median * 1000), String(format: "%.2f", BenchStatistics.percentile95(row.seconds) * 1000),
                          cpu.map { String(format: "%.2fx", row.median / $0.median) } ?? "-", row.parity])
        }
        return TextTable.format(table)
    }

    func json() -> String {
        let devices: [[String: Any]] = paths.map { path in
            var entry: [String: Any] = ["path": path.label, "device": path.device, "setup_ms": path.setupSeconds * 1000]
            if let error = path.error { entry["error"] = error }
            return entry
        }
        let rows: [[String: Any]] = results.map { r in
            var row: [String: Any] = [
                "path": r.path, "device": paths.first { $0.label == r.path }?.device ?? "",
                "size": "\(r.width)x\(r.height)", "first_ms": r.firstSeconds * 1000, "min_ms": r.minimum * 1000,
                "median_ms": r.median * 1000, "p95_ms": r.p95 * 1000, "images_per_second": 1 / r.median,
                "gflops": r.gflops, "runs": r.seconds.count,
            ]
            if let parity = r.parity {
                row["parity_max_abs_diff"] = Double(parity.maxAbsDiff)
                row["parity_psnr_db"] = parity.psnr.isFinite ? parity.psnr : 999
            }
            return row
        }
        let rectangleRows: [[String: Any]] = rectangles.map { row in
            ["work": row.work, "size": row.size, "path": row.path, "min_ms": row.seconds.first! * 1000,
             "median_ms": row.median * 1000, "p95_ms": BenchStatistics.percentile95(row.seconds) * 1000, "parity": row.parity]
        }
        let object: [String: Any] = ["machine": ["cores": ProcessInfo.processInfo.activeProcessorCount], "paths": devices,
                                     "results": rows, "rectangles": rectangleRows]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
