import Foundation

/// An input of a batch: its path, and the key its shard is chosen by (its path relative to the
/// folder it was found in, or the path as given).
public struct BatchInput: Equatable, Sendable {
    public let path: String
    public let key: String

    public init(path: String, key: String) {
        self.path = path
        self.key = key
    }
}

/// One task's share of a batch (a folder, several inputs), the loop every folder command runs:
/// the inputs of this task's shard, those already finished skipped (when the outputs are files
/// in a folder with a `ResumeManifest`), the others done one by one, a failure reported and
/// the batch going on, and everything counted for the `BatchSummary`.
public struct BatchJob {
    public let shard: Shard
    /// Every input of the batch, in the order given.
    public let inputs: [BatchInput]
    /// This task's share, in the same order.
    public let assigned: [BatchInput]
    /// Finished outputs are looked up and recorded here (nil: outputs are not files in a
    /// folder, e.g. reports on standard output, and nothing is skipped).
    public var manifest: ResumeManifest?
    /// Redo finished outputs.
    public var force = false

    public init(inputs: [BatchInput], shard: Shard) {
        self.inputs = inputs
        self.shard = shard
        assigned = inputs.filter { shard.owns($0.key) }
    }

    /// What happened to one input, for the caller's progress and messages.
    public enum Outcome {
        case done
        case skipped
        case failed(Error)
    }

    /// Runs `body` on each assigned input; `outputName(input)` is its output's name in the
    /// manifest's folder (when there is a manifest). `body` writes the output itself (renamed
    /// into place); the record follows. `observe` sees each outcome with its 1-based position
    /// and may throw to stop the batch (standard output gone); the summary counts every input
    /// up to there. `device` is what the summary names.
    public func run(device: @autoclosure () -> String,
                    outputName: (BatchInput) -> String? = { _ in nil },
                    observe: (BatchInput, Outcome, Int) throws -> Void = { _, _, _ in },
                    _ body: (BatchInput) throws -> Void) throws -> BatchSummary {
        let start = MonotonicClock.seconds()
        var summary = BatchSummary(shard: shard.description, assigned: assigned.count)
        if let manifest {
            manifest.removeLeftovers(of: Set(assigned.compactMap(outputName)))
        }
        for (position, input) in assigned.enumerated() {
            let name = manifest == nil ? nil : outputName(input)
            let outcome: Outcome
            if let manifest, let name, !force, input.path != "-", manifest.isFinished(output: name, source: input.path) {
                outcome = .skipped
                summary.skipped += 1
            } else {
                do {
                    // Read before the work: the record must describe the bytes the output was made from.
                    let source = try name.map { _ in try ResumeManifest.Source.of(input.path) }
                    if let manifest, let name { manifest.forget(output: name) }
                    try body(input)
                    if let manifest, let name, let source { try manifest.markFinished(output: name, source: source) }
                    outcome = .done
                    summary.done += 1
                } catch {
                    outcome = .failed(error)
                    summary.failed += 1
                    summary.failures.append(.init(file: input.path, error: "\(error)"))
                }
            }
            try observe(input, outcome, position + 1)
        }
        summary.seconds = MonotonicClock.seconds() - start
        summary.device = device()
        return summary
    }
}

/// What one task of a batch did, as `--summary FILE` writes it:
/// `{"shard": "1/4", "assigned": n, "done": n, "skipped": n, "failed": n,
///   "failures": [{"file": …, "error": …}], "seconds": s, "device": …}`; `done` counts the
/// outputs this run made, `skipped` those an earlier run had finished.
public struct BatchSummary: Codable, Equatable, Sendable {
    public struct Failure: Codable, Equatable, Sendable {
        public var file: String
        public var error: String

        public init(file: String, error: String) {
            self.file = file
            self.error = error
        }
    }

    public var shard: String
    public var assigned: Int
    public var done = 0
    public var skipped = 0
    public var failed = 0
    public var failures: [Failure] = []
    public var seconds: Double = 0
    public var device = ""

    public init(shard: String, assigned: Int) {
        self.shard = shard
        self.assigned = assigned
    }

    /// The JSON, keys in the documented order, one line.
    public func json() -> Data {
        func string(_ text: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]),
                   as: UTF8.self)
        }
        let failures = self.failures.map { "{\"file\": \(string($0.file)), \"error\": \(string($0.error))}" }
        let text = "{\"shard\": \(string(shard)), \"assigned\": \(assigned), \"done\": \(done), \"skipped\": \(skipped), "
            + "\"failed\": \(failed), \"failures\": [\(failures.joined(separator: ", "))], "
            + "\"seconds\": \(String(format: "%.3f", seconds)), \"device\": \(string(device))}\n"
        return Data(text.utf8)
    }
}
