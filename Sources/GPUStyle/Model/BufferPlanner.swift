/// Places a network's tensors in one memory pool by liveness: two tensors share bytes only if
/// no step needs both. This is the "greedy by size" offset assignment of Pisarchyk and Lee,
/// "Efficient Memory Management for Deep Neural Net Inference" (2020): the largest tensor is
/// placed first, each next one in the smallest gap, among the tensors placed so far that are
/// live at the same time, that it fits in (or after them all). A plan is made once per input
/// size; the pool is then allocated once.
public enum BufferPlanner {
    /// A tensor: its size in bytes and the steps from its first to its last use, inclusive.
    public struct Request: Sendable, Equatable {
        public let size: Int
        public let firstStep: Int
        public let lastStep: Int

        public init(size: Int, firstStep: Int, lastStep: Int) {
            precondition(size >= 0 && firstStep <= lastStep, "a tensor needs a size and a first step before its last")
            self.size = size
            self.firstStep = firstStep
            self.lastStep = lastStep
        }

        func overlaps(_ other: Request) -> Bool { firstStep <= other.lastStep && other.firstStep <= lastStep }
    }

    public struct Plan: Sendable, Equatable {
        /// Byte offset of each request in the pool, in the requests' order.
        public let offsets: [Int]
        /// Bytes the pool needs.
        public let poolSize: Int
    }

    /// Offsets (multiples of `alignment`) for `requests`.
    public static func plan(_ requests: [Request], alignment: Int = 256) -> Plan {
        precondition(alignment > 0, "alignment must be positive")
        func aligned(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }
        let order = requests.indices.sorted { (requests[$0].size, $1) > (requests[$1].size, $0) }
        var offsets = [Int](repeating: 0, count: requests.count)
        var placed: [Int] = []
        var poolSize = 0
        for index in order {
            let request = requests[index]
            let neighbours = placed.filter { requests[$0].overlaps(request) }.sorted { offsets[$0] < offsets[$1] }
            var best: (offset: Int, gap: Int)?
            var cursor = 0
            for other in neighbours {
                let gap = offsets[other] - cursor
                if gap >= request.size, best.map({ gap < $0.gap }) ?? true { best = (cursor, gap) }
                cursor = max(cursor, aligned(offsets[other] + requests[other].size))
            }
            let offset = best?.offset ?? cursor
            offsets[index] = offset
            placed.append(index)
            poolSize = max(poolSize, offset + request.size)
        }
        return Plan(offsets: offsets, poolSize: poolSize)
    }

    /// The least any plan can need: the most bytes live at one step.
    public static func lowerBound(_ requests: [Request]) -> Int {
        guard let last = requests.map(\.lastStep).max(), let first = requests.map(\.firstStep).min() else { return 0 }
        return (first...last).map { step in
            requests.filter { $0.firstStep <= step && step <= $0.lastStep }.reduce(0) { $0 + $1.size }
        }.max() ?? 0
    }
}
