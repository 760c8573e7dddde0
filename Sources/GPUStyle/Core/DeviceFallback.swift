/// Runs work on a primary (GPU) stage and, the first time it fails, switches to a fallback (CPU)
/// stage for good, with one warning, and re-runs the failed work there: a GPU failure is not the
/// user's failure. The run-time half of `ComputeChoice`'s `auto` rule, for any kind of stage.
public final class DeviceFallback<Stage> {
    private var primary: Stage?
    private let makeFallback: () -> Stage
    private var fallback: Stage?
    private let message: (Stage, Error) -> String
    /// Receives the one-line warning when the switch happens (default: standard error).
    public var warn: (String) -> Void = { printToStandardError($0) }

    /// - Parameter message: the warning for the primary's failure (made once, at the switch).
    public init(primary: Stage, fallback: @escaping () -> Stage, message: @escaping (Stage, Error) -> String) {
        self.primary = primary
        self.makeFallback = fallback
        self.message = message
    }

    /// The stage that runs the next work: the primary until it fails, then the fallback.
    public var active: Stage {
        if let primary { return primary }
        if fallback == nil { fallback = makeFallback() }
        return fallback!
    }

    /// Whether the switch to the fallback has happened.
    public var hasFallenBack: Bool { primary == nil }

    public func run<Result>(_ work: (Stage) throws -> Result) throws -> Result {
        if let primary {
            do {
                return try work(primary)
            } catch {
                warn(message(primary, error))
                self.primary = nil
            }
        }
        return try work(active)
    }
}
