/// One task's part of a batch spread over `count` tasks started by a scheduler (a Slurm job
/// array, a Kubernetes Indexed Job): task `index` (0-based, as Kubernetes' `JOB_COMPLETION_INDEX`)
/// takes the inputs whose key hashes to it.
///
/// The key is an input's path relative to the folder it was found in (or the path as given), so
/// the choice depends on nothing else: every task of an array computes the same partition without
/// talking to the others, a re-run takes the same files, and adding files to the folder moves
/// only the new ones. The hash is part of the command's contract (changing it would move files
/// between shards of a run in progress): FNV-1a 64 over the key's UTF-8 bytes, then
/// SplitMix64's finaliser so that its low bits, which `% count` keeps, depend on every byte.
/// tools/shard_reference.py computes the same values independently (ShardTests checks them).
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// This task's index, 0 ..< count.
    public let index: Int
    /// How many tasks share the batch.
    public let count: Int

    /// The whole batch in one task (no `--shard`).
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    /// Shard counts above this are surely a typo (a million-task array is beyond any scheduler's
    /// default limit: Slurm's MaxArraySize is 1001).
    public static let maximumCount = 1_000_000

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public init(index: Int, count: Int) throws {
        guard (1...Self.maximumCount).contains(count) else {
            throw ParseError(description: "the shard count must be 1-\(Self.maximumCount) (got \(count))")
        }
        guard (0..<count).contains(index) else {
            throw ParseError(description: "shard \(index)/\(count): the index must be 0-\(count - 1) (shards are numbered from 0)")
        }
        self.init(uncheckedIndex: index, count: count)
    }

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether this shard takes the input with this key.
    public func owns(_ key: String) -> Bool {
        count == 1 || Int(Self.stableHash(key) % UInt64(count)) == index
    }

    /// The shard `key` belongs to among `count`.
    public static func stableHash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a 64 offset basis
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3  // FNV 64 prime
        }
        // SplitMix64's finaliser (Steele, Lea and Flood 2014).
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    /// Reads `--shard`'s value:
    /// - `I/N`: task I of N (Kubernetes: `$JOB_COMPLETION_INDEX/N`);
    /// - `auto`: from a Slurm job array, N = `SLURM_ARRAY_TASK_MAX` − `SLURM_ARRAY_TASK_MIN` + 1
    ///   and I = `SLURM_ARRAY_TASK_ID` mod N (an array need not start at 0: `--array=1-4` gives
    ///   shards 1, 2, 3, 0);
    /// - `auto/N`: I = `SLURM_ARRAY_TASK_ID` mod N, for re-running some tasks as a new, smaller
    ///   array (`sbatch --array=2`): the task keeps the shard it had in the full array.
    ///
    /// `environment` is the process's (the library reads none itself). Missing or inconsistent
    /// variables (a stepped or listed array, an ID outside MIN-MAX) are an error.
    public static func parse(_ text: String, environment: [String: String]) throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2 else { throw usage(text) }
        if parts[0] == "auto" {
            var count: Int?
            if parts.count == 2 {
                guard let n = Int(parts[1]) else { throw usage(text) }
                count = n
            }
            return try fromSlurm(environment, count: count)
        }
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { throw usage(text) }
        return try Shard(index: index, count: count)
    }

    private static func usage(_ text: String) -> ParseError {
        ParseError(description: "--shard \(text): expected I/N (task I of N, from 0), auto (a Slurm job array) or auto/N")
    }

    private static func fromSlurm(_ environment: [String: String], count given: Int?) throws -> Shard {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw ParseError(description: "--shard auto: \(name)=\(text) is not a task number")
            }
            return value
        }
        guard let id = try number("SLURM_ARRAY_TASK_ID") else {
            throw ParseError(description: "--shard auto: SLURM_ARRAY_TASK_ID is not set (this is not a task of a Slurm job array: submit with sbatch --array=0-N, or give --shard I/N)")
        }
        guard let minimum = try number("SLURM_ARRAY_TASK_MIN"), let maximum = try number("SLURM_ARRAY_TASK_MAX") else {
            throw ParseError(description: "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_MAX is not")
        }
        guard minimum <= id, id <= maximum else {
            throw ParseError(description: "--shard auto: SLURM_ARRAY_TASK_ID=\(id) is outside SLURM_ARRAY_TASK_MIN-MAX (\(minimum)-\(maximum))")
        }
        let span = maximum - minimum + 1
        if let step = try number("SLURM_ARRAY_TASK_STEP"), step != 1, given == nil {
            throw ParseError(description: "--shard auto: the array has step \(step) (SLURM_ARRAY_TASK_STEP), so its tasks are not one range; submit --array=A-B, or give --shard auto/N")
        }
        if let listed = try number("SLURM_ARRAY_TASK_COUNT"), listed != span, given == nil {
            throw ParseError(description: "--shard auto: the array has \(listed) tasks (SLURM_ARRAY_TASK_COUNT) in \(minimum)-\(maximum), not one range; submit --array=A-B, or give --shard auto/N")
        }
        guard let count = given else { return try Shard(index: id % span, count: span) }
        guard count >= 1 else { throw ParseError(description: "--shard auto/\(count): the shard count must be at least 1") }
        guard span <= count else {
            throw ParseError(description: "--shard auto/\(count): the array spans \(span) tasks (SLURM_ARRAY_TASK_MIN-MAX \(minimum)-\(maximum)), more than \(count) shards: two tasks would do the same files")
        }
        return try Shard(index: id % count, count: count)
    }
}
