/// Pictures the live pipeline let go of for another one, kept for a while to be recognised when
/// they come back (issue 35: the memory of an old picture serves re-identification; it never
/// blocks a new one).
///
/// Without it, a picture replaced by a second one was a stranger when the camera came back to it:
/// it had to be confirmed as a candidate again, and its new template was taken from a frame of
/// the pan back. On the `second` clip that template came from a detection 5.5 px off, after
/// which the right detections scored lower than the drifting track and were refused: the first
/// picture was drawn 6-10 px off for 1.3 s (mean 4.2 px over the clip, against 1.0 with the
/// template it had before).
struct PictureMemory {
    struct Picture {
        var template: PictureTemplate
        /// The frame and quad of the last detection taken of it (`LivePipeline.relocate`).
        var reference: (frame: Image, quad: Quad)?
        /// When it was let go.
        var since: Double
    }

    /// The most pictures kept: the newest ones.
    static let capacity = 2
    private(set) var pictures: [Picture] = []

    mutating func remember(_ template: PictureTemplate, reference: (frame: Image, quad: Quad)?, at time: Double) {
        pictures.append(Picture(template: template, reference: reference, since: time))
        if pictures.count > Self.capacity { pictures.removeFirst(pictures.count - Self.capacity) }
    }

    /// Forgets the pictures let go of more than `after` seconds before `time`.
    mutating func forget(at time: Double, after: Double) {
        pictures.removeAll { time - $0.since > after }
    }

    /// The remembered picture that `quad` in `frame` looks most like, if it scores at least
    /// `threshold` on the coarse layout (`smoothing`, as re-identification does), with its index
    /// (`forget(_:)` once it is the picture again).
    func recognise(frame: Image, quad: Quad, smoothing: Int, threshold: Double) -> (index: Int, picture: Picture)? {
        var best: (index: Int, score: Double)?
        for (i, picture) in pictures.enumerated() {
            guard let score = picture.template.score(frame: frame, quad: quad, smoothing: smoothing), score >= threshold,
                  score > (best?.score ?? -.infinity) else { continue }
            best = (i, score)
        }
        return best.map { ($0.index, pictures[$0.index]) }
    }

    mutating func forget(_ index: Int) { pictures.remove(at: index) }
}
