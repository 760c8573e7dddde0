import Foundation

/// The 1€ filter (Casiez, Roussel and Vogel, "1€ Filter: A Simple Speed-based Low-pass Filter for
/// Noisy Input in Interactive Systems", CHI 2012): a first-order low-pass filter whose cutoff
/// rises with the signal's speed, so that a still signal is smoothed hard (no jitter) and a
/// moving one follows with little lag.
///
/// Per sample x at time t (dt since the last): the speed dx = (x - x̂prev) / dt, low-passed at
/// `derivativeCutoff`; cutoff = `minimumCutoff` + `beta` * |dx̂|; x̂ = x̂prev + α (x - x̂prev) with
/// α = 1 / (1 + τ / dt), τ = 1 / (2π cutoff). The first sample passes unchanged.
///
/// `scale` divides the speed before it sets the cutoff (as MediaPipe's landmark smoothing divides
/// by the object's size): with the face's size as the scale, the same parameters serve a face
/// 60 px high and one 400 px high.
public struct OneEuroFilter: Sendable {
    public struct Parameters: Sendable, Equatable {
        /// Hz: the cutoff at rest.
        public var minimumCutoff: Double
        /// How fast the cutoff rises with the speed (speed in `scale` units per second).
        public var beta: Double
        /// Hz: the cutoff of the speed's own low-pass filter (the paper's default, 1 Hz).
        public var derivativeCutoff: Double

        public init(minimumCutoff: Double, beta: Double, derivativeCutoff: Double = 1) {
            self.minimumCutoff = minimumCutoff
            self.beta = beta
            self.derivativeCutoff = derivativeCutoff
        }
    }

    public let parameters: Parameters
    private var last: (value: Double, speed: Double, time: Double)?

    public init(_ parameters: Parameters) {
        self.parameters = parameters
    }

    /// The smoothing factor of a low-pass filter with `cutoff` (Hz) over `dt` seconds.
    static func alpha(cutoff: Double, dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }

    /// The filtered value of `value` sampled at `time` (seconds). A sample not later than the
    /// previous one (a repeated timestamp) returns the previous output unchanged.
    public mutating func filter(_ value: Double, at time: Double, scale: Double = 1) -> Double {
        guard let previous = last else {
            last = (value, 0, time)
            return value
        }
        let dt = time - previous.time
        guard dt > 0 else { return previous.value }
        let rawSpeed = (value - previous.value) / dt / max(scale, .leastNormalMagnitude)
        let speed = previous.speed + Self.alpha(cutoff: parameters.derivativeCutoff, dt: dt) * (rawSpeed - previous.speed)
        let cutoff = parameters.minimumCutoff + parameters.beta * abs(speed)
        let filtered = previous.value + Self.alpha(cutoff: cutoff, dt: dt) * (value - previous.value)
        last = (filtered, speed, time)
        return filtered
    }

    /// Forgets the signal: the next sample passes unchanged.
    public mutating func reset() {
        last = nil
    }
}

/// A 1€ filter on each coordinate of a set of points that move together (a face's 468 mesh
/// points), with one time and one scale per sample.
public struct PointSetFilter: Sendable {
    private var x: [OneEuroFilter]
    private var y: [OneEuroFilter]

    public init(count: Int, parameters: OneEuroFilter.Parameters) {
        x = Array(repeating: OneEuroFilter(parameters), count: count)
        y = x
    }

    /// The filtered points (`points.count` must be the count given at `init`).
    public mutating func filter(_ points: [Point], at time: Double, scale: Double) -> [Point] {
        precondition(points.count == x.count, "a point set filter takes \(x.count) points")
        var out = points
        for i in points.indices {
            out[i] = Point(x: x[i].filter(points[i].x, at: time, scale: scale), y: y[i].filter(points[i].y, at: time, scale: scale))
        }
        return out
    }
}
