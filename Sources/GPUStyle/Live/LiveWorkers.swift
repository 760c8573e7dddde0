import Foundation

/// A frame given to the detection stage, and what it found there.
public struct DetectionJob: Sendable {
    let frame: Image
    let index: Int
}

public struct DetectionOutcome: Sendable {
    let job: DetectionJob
    /// The detector's first observation, if any.
    let found: RectangleObservation?
    let error: String?
}

/// The detector, used only from the detection stage's thread (hence unchecked).
final class DetectionWorker: @unchecked Sendable {
    let detect: (Image) throws -> RectangleObservation?

    init(detector: RectangleDetector, options: RectangleDetectionOptions) {
        var options = options
        options.maximumObservations = 1
        detect = { [options] frame in try detector.detect(frame, options: options).first }
    }

    /// Any other way to find the picture (tests script the detections, measured or not).
    init(observe: @escaping (Image) throws -> RectangleObservation?) {
        self.detect = observe
    }

    func run(_ job: DetectionJob) -> DetectionOutcome {
        do {
            return DetectionOutcome(job: job, found: try detect(job.frame), error: nil)
        } catch {
            return DetectionOutcome(job: job, found: nil, error: "\(error)")
        }
    }
}

/// What the stylize stage works on: a quad of a frame (rectified first), or the whole frame.
public struct StylizeJob: Sendable {
    let frame: Image
    let quad: Quad?
    let mix: StyleMix
    let step: Int
}

public struct StylizeOutcome: Sendable {
    let image: Image?
    let step: Int
    let error: String?
}

/// The stylizer and the rectifying warp, used only from the stylize stage's thread.
final class StylizeWorker: @unchecked Sendable {
    let stylizer: Stylizer
    let strength: Float
    let preserveColor: Bool
    let side: Int
    let warper = CPUPerspectiveWarper()
    /// `--smooth`: the stylized images smoothed over time where the stylized input is still;
    /// started afresh when the style changes (the crossfade shows that) or the size does.
    private var smoothing: TemporalSmoothing?
    private var smoothedStep: Int?

    init(stylizer: Stylizer, strength: Float, preserveColor: Bool = false, side: Int,
         smoothing: TemporalSmoothing.Parameters? = nil) {
        self.stylizer = stylizer
        self.strength = strength
        self.preserveColor = preserveColor
        self.side = side
        self.smoothing = smoothing.map(TemporalSmoothing.init)
    }

    func run(_ job: StylizeJob) -> StylizeOutcome {
        do {
            var input = job.frame
            if let quad = job.quad {
                let (width, height) = Self.rectifiedSize(quad, side: side)
                let rectToFrame = try Homography.rectangle(width: width, height: height, to: quad)
                input = try warper.warp(job.frame, outputToSource: rectToFrame, width: width, height: height)
            }
            var image = try stylizer.stylize(input, mix: job.mix, strength: strength, preserveColor: preserveColor)
            if smoothing != nil {
                if smoothedStep != job.step { smoothing!.reset() }
                smoothedStep = job.step
                image = smoothing!.apply(input: input, stylized: image)
            }
            return StylizeOutcome(image: image, step: job.step, error: nil)
        } catch {
            return StylizeOutcome(image: nil, step: job.step, error: "\(error)")
        }
    }

    /// The quad's rectified size (`Quad.rectifiedSize`) scaled so the longer side is `side`,
    /// both sides at least the network's minimum, rounded to multiples of 16: the quad changes
    /// a little every frame, and a new network size means a new plan and new buffers.
    static func rectifiedSize(_ quad: Quad, side: Int) -> (width: Int, height: Int) {
        let natural = quad.rectifiedSize
        let scale = Double(side) / Double(max(1, max(natural.width, natural.height)))
        func rounded(_ length: Int) -> Int {
            max(StyleNetwork.minimumInputSide, 16 * Int((Double(length) * scale / 16).rounded()))
        }
        return (rounded(natural.width), rounded(natural.height))
    }
}
