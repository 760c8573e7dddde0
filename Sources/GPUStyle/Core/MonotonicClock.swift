import Foundation

/// Seconds from a monotonic clock (immune to wall-clock adjustments), for timing work.
public enum MonotonicClock {
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }
}
