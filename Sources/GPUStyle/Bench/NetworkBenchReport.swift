import Foundation

/// `gpustyle bench --network`'s output: a table for people, JSON for scripts (tools/gpu-report).
public struct NetworkBenchReport {
    public let paths: [NetworkBench.Path]
    public let rows: [NetworkBench.Row]
    /// CPU cores, for the reader of the JSON.
    public var cores = ProcessInfo.processInfo.activeProcessorCount

    public init(paths: [NetworkBench.Path], rows: [NetworkBench.Row]) {
        self.paths = paths
        self.rows = rows
    }

    /// The row of the CPU path for the same network and size, which "vs cpu" divides by.
    func cpuRow(_ row: NetworkBench.Row) -> NetworkBench.Row? {
        rows.first { $0.path == "cpu" && $0.network == row.network && $0.size == row.size && $0.error == nil }
    }

    public func table() -> String {
        var lines = paths.map { path in "\(path.label): " + (path.error.map { "unavailable (\($0))" } ?? path.device) }
        lines.append("")
        var table = [["network", "size", "path", "setup ms", "first ms", "min ms", "median ms", "p95 ms", "GFLOP/s", "vs cpu",
                      "difference vs first path"]]
        for row in rows {
            guard row.error == nil else {
                table.append([row.network.rawValue, row.size, row.path, "-", "-", "-", "-", "-", "-", "-", "failed: \(row.error!)"])
                continue
            }
            let ms = { (seconds: Double) in String(format: seconds * 1000 < 10 ? "%.2f" : "%.1f", seconds * 1000) }
            table.append([row.network.rawValue, row.size, row.path, String(format: "%.0f", row.setupSeconds * 1000),
                          ms(row.firstSeconds), ms(row.minimum), ms(row.median), ms(row.p95),
                          row.flops > 0 ? String(format: "%.1f", row.gflops) : "-",
                          cpuRow(row).map { String(format: "%.2fx", row.median / $0.median) } ?? "-",
                          row.difference.map { String(format: "%.1e", $0) } ?? "-"])
        }
        return (lines + Self.format(table)).joined(separator: "\n")
    }

    /// `TextTable.format` with the network and size columns left-aligned too.
    static func format(_ rows: [[String]]) -> [String] {
        TextTable.format(rows.map { [$0[0] + " " + $0[1]] + $0.dropFirst(2) })
    }

    /// A JSON-ready dictionary: the paths and one entry per row (times in ms).
    public func jsonObject() -> [String: Any] {
        let devices: [[String: Any]] = paths.map { path in
            var entry: [String: Any] = ["path": path.label, "device": path.device]
            if let error = path.error { entry["error"] = error }
            return entry
        }
        let entries: [[String: Any]] = rows.map { row in
            var entry: [String: Any] = ["network": row.network.rawValue, "size": row.size, "path": row.path, "device": row.device,
                                        "setup_ms": row.setupSeconds * 1000, "flops": row.flops, "bytes": row.bytes,
                                        "runs": row.seconds.count]
            if let error = row.error {
                entry["error"] = error
            } else {
                entry["first_ms"] = row.firstSeconds * 1000
                entry["min_ms"] = row.minimum * 1000
                entry["median_ms"] = row.median * 1000
                entry["p95_ms"] = row.p95 * 1000
                entry["gflops"] = row.gflops
                entry["gbps"] = row.gbps
                if let cpu = cpuRow(row) { entry["vs_cpu"] = row.median / cpu.median }
                if let difference = row.difference { entry["difference"] = difference.isFinite ? difference : 1e30 }
            }
            return entry
        }
        return ["machine": ["cores": cores], "paths": devices, "networks": entries]
    }

    public func json() throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: jsonObject(), options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
    }
}
