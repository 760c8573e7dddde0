import Foundation

/// Counts and latencies of a live run: a line per interval (`--stats`) and a summary at exit.
public final class LiveStatistics {
    struct Window {
        var framesIn = 0
        var framesOut = 0
        var inputDropped = 0
        var detectSkipped = 0
        var stylizeSkipped = 0
        var detections = 0
        var stylized = 0
        var overlaid = 0
        var losses = 0
        var reacquisitions = 0
        var detectLatency: [Double] = []
        var trackLatency: [Double] = []
        var stylizeLatency: [Double] = []
        var frameLatency: [Double] = []
        var classifications = 0
        /// Frames due for a classification while one was running (not queued: skipped).
        var classifySkipped = 0
        var classifyLatency: [Double] = []

        mutating func add(_ other: Window) {
            framesIn += other.framesIn
            framesOut += other.framesOut
            inputDropped += other.inputDropped
            detectSkipped += other.detectSkipped
            stylizeSkipped += other.stylizeSkipped
            detections += other.detections
            stylized += other.stylized
            overlaid += other.overlaid
            losses += other.losses
            reacquisitions += other.reacquisitions
            detectLatency += other.detectLatency
            trackLatency += other.trackLatency
            stylizeLatency += other.stylizeLatency
            frameLatency += other.frameLatency
            classifications += other.classifications
            classifySkipped += other.classifySkipped
            classifyLatency += other.classifyLatency
        }
    }

    private var window = Window()
    /// `gpustyle live --classify`: the lines report classifications and labelled frames.
    private var classifying = false
    /// What the classification stage's results are called in the lines.
    private var noun = "classifications"
    private var total = Window()
    private var windowStart: Double
    private let start: Double

    public init(now: Double = MonotonicClock.seconds()) {
        start = now
        windowStart = now
    }

    /// One output frame: how long it took (read to written) and whether it had an overlay.
    public func frameDone(latency: Double, overlaid: Bool) {
        window.framesOut += 1
        window.frameLatency.append(latency)
        if overlaid { window.overlaid += 1 }
    }

    /// Everything the sources and stages counted since the last call.
    public func collect(received: Int, dropped: Int, pipeline: LivePipeline) {
        window.framesIn = received - total.framesIn
        window.inputDropped = dropped - total.inputDropped
        let d = pipeline.detection.harvest(), s = pipeline.stylization.harvest()
        window.detectSkipped += d.skipped
        window.stylizeSkipped += s.skipped
        window.detections += d.completed
        window.stylized += s.completed
        window.detectLatency += d.latencies
        window.stylizeLatency += s.latencies
        window.trackLatency += pipeline.harvestTrackingTimes()
        let events = pipeline.harvestEvents()
        window.losses += events.losses
        window.reacquisitions += events.reacquisitions
    }

    /// The same for a classification run (`overlaid` frames are then the labelled ones).
    public func collect(received: Int, dropped: Int, classification: LiveClassification) {
        collectReads(received: received, dropped: dropped, classification.stage.harvest())
    }

    /// The same for a notes run (`live --digits`): readings count as classifications.
    public func collect(received: Int, dropped: Int, digits: LiveDigits) {
        noun = "readings"
        collectReads(received: received, dropped: dropped, digits.stage.harvest())
        window.trackLatency += digits.harvestTrackingTimes()
    }

    /// The same for a text run (`live --text`): readings count as classifications.
    public func collect(received: Int, dropped: Int, text: LiveText) {
        noun = "readings"
        collectReads(received: received, dropped: dropped, text.stage.harvest())
        window.trackLatency += text.harvestTrackingTimes()
    }

    /// The same for a faces run (`live --faces`): detections count as classifications, the
    /// meshes' time per frame as tracking.
    public func collect(received: Int, dropped: Int, faces: LiveFaces) {
        noun = "detections"
        collectReads(received: received, dropped: dropped, faces.stage.harvest())
        window.trackLatency += faces.harvestMeshTimes()
    }

    /// A background reader's interval (classifications or note readings): frames in, dropped,
    /// and the reader stage's completed, skipped and latencies.
    private func collectReads(received: Int, dropped: Int, _ reads: (skipped: Int, completed: Int, latencies: [Double])) {
        classifying = true
        window.framesIn = received - total.framesIn
        window.inputDropped = dropped - total.inputDropped
        window.classifications += reads.completed
        window.classifySkipped += reads.skipped
        window.classifyLatency += reads.latencies
    }

    /// The interval's line when at least `interval` seconds have passed since the last one.
    public func line(now: Double = MonotonicClock.seconds(), interval: Double = 1) -> String? {
        let elapsed = now - windowStart
        guard elapsed >= interval else { return nil }
        let text = classifying ? Self.describeClassification(window, seconds: elapsed, noun: noun) : Self.describe(window, seconds: elapsed)
        total.add(window)
        window = Window()
        windowStart = now
        return text
    }

    /// The whole run.
    public func summary(now: Double = MonotonicClock.seconds()) -> String {
        total.add(window)
        window = Window()
        let seconds = now - start
        return "summary: " + (classifying ? Self.describeClassification(total, seconds: seconds, noun: noun) : Self.describe(total, seconds: seconds))
    }

    static func describeClassification(_ w: Window, seconds: Double, noun: String = "classifications") -> String {
        let s = max(seconds, 1e-9)
        func rate(_ n: Int) -> String { String(format: "%.1f", Double(n) / s) }
        // The stage's verb, and what the frame loop does besides (notes tracked, faces meshed).
        let (verb, follow): (String, String?) = noun == "readings" ? ("read", "track")
            : noun == "detections" ? ("detect", "mesh") : ("classify", nil)
        return "\(String(format: "%.1f", seconds)) s: fps in \(rate(w.framesIn)) out \(rate(w.framesOut))"
            + " | dropped: input \(w.inputDropped), \(verb) \(w.classifySkipped)"
            + " | \(noun) \(w.classifications) (\(rate(w.classifications)) per second), labelled frames \(w.overlaid)"
            + " | median ms: frame \(median(w.frameLatency)), \(verb) \(median(w.classifyLatency))"
            + (follow.map { ", \($0) \(median(w.trackLatency))" } ?? "")
    }

    static func median(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "-" }
        let sorted = values.sorted()
        return String(format: "%.1f", 1000 * sorted[sorted.count / 2])
    }

    static func describe(_ w: Window, seconds: Double) -> String {
        let s = max(seconds, 1e-9)
        func rate(_ n: Int) -> String { String(format: "%.1f", Double(n) / s) }
        func ms(_ values: [Double]) -> String {
            guard !values.isEmpty else { return "-" }
            let sorted = values.sorted()
            return String(format: "%.1f", 1000 * sorted[sorted.count / 2])
        }
        return "\(String(format: "%.1f", seconds)) s: fps in \(rate(w.framesIn)) out \(rate(w.framesOut))"
            + " | dropped: input \(w.inputDropped), detect \(w.detectSkipped), stylize \(w.stylizeSkipped)"
            + " | per second: detections \(rate(w.detections)), style refreshes \(rate(w.stylized)), overlaid \(rate(w.overlaid))"
            + " | picture: lost \(w.losses), found again \(w.reacquisitions)"
            + " | median ms: frame \(ms(w.frameLatency)), detect \(ms(w.detectLatency)), track \(ms(w.trackLatency)), stylize \(ms(w.stylizeLatency))"
    }
}
