import Foundation

/// How much memory this process may use: what the system says is available, within the
/// cgroup's limit when there is one (containers, systemd slices), read from /proc and /sys.
public enum MemoryBudget {
    /// The default budget is this share of the memory available when the run starts, at most
    /// `defaultCeiling`: room for the system and other programs.
    public static let defaultShare = 0.5
    /// Whole-image plans take ~450 bytes per pixel; beyond ~8 MP that is several GB for a
    /// speed-up of a few tens of percent over tiles (docs/devices-and-memory.md, "Memory"), so by default larger
    /// images are tiled.
    public static let defaultCeiling = 4 << 30

    /// `defaultShare` of `available()`, at most `defaultCeiling`.
    public static func defaultBudget() -> Int {
        min(defaultCeiling, Int(Double(available()) * defaultShare))
    }

    /// MemAvailable from /proc/meminfo, lowered to the room left under every cgroup limit on
    /// the way from this process's cgroup to the root (v2 `memory.max` - `memory.current`,
    /// or v1 `memory.limit_in_bytes` - `memory.usage_in_bytes`) and under the address-space
    /// limit (`ulimit -v`: RLIMIT_AS - VmSize), where allocations fail rather than get killed.
    public static func available() -> Int {
        var room = meminfoAvailable() ?? Int.max
        if let limit = cgroupRoom() { room = min(room, limit) }
        if let limit = addressSpaceRoom() { room = min(room, limit) }
        return room == Int.max ? 1 << 30 : max(0, room)
    }

    static func addressSpaceRoom() -> Int? {
        // RLIM_INFINITY is all ones (it does not import into Swift as a constant).
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
              let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmSize:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kib = Int(fields[1]) { return Int(limit.rlim_cur) - kib * 1024 }
        }
        return nil
    }

    static func meminfoAvailable() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let kib = Int(fields[1]) { return kib * 1024 }
        }
        return nil
    }

    static func cgroupRoom() -> Int? {
        func number(_ path: String) -> Int? {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))  // "max" -> nil
        }
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        var room: Int?
        for line in membership.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let controllers = parts[1], path = String(parts[2])
            if controllers.isEmpty {  // v2 unified hierarchy: every level up to the root
                var folder = path
                while true {
                    let base = "/sys/fs/cgroup" + (folder == "/" ? "" : folder)
                    if let max = number(base + "/memory.max"), let current = number(base + "/memory.current") {
                        room = min(room ?? Int.max, max - current)
                    }
                    if folder == "/" || folder.isEmpty { break }
                    folder = (folder as NSString).deletingLastPathComponent
                }
            } else if controllers.split(separator: ",").contains("memory") {
                for base in ["/sys/fs/cgroup/memory" + path, "/sys/fs/cgroup/memory"] {
                    if let limit = number(base + "/memory.limit_in_bytes"), limit < (1 << 60),
                       let usage = number(base + "/memory.usage_in_bytes") {
                        room = min(room ?? Int.max, limit - usage)
                        break
                    }
                }
            }
        }
        return room
    }
}
