/// Where each character of a read text line lies: a box around its ink in the line's crop,
/// mapped into the photo.
///
/// A CTC recogniser says at which output steps it read a character, which places the character
/// within a step (8 columns) at best, not its extent. Each character gets a span of columns (how
/// the spans are cut is `Options.Method`), the span is trimmed to the ink in it (columns, then
/// the rows of those columns), and the rectangle around that ink goes through the crop-to-photo
/// homography as a `Quad`.
///
/// Measured on rendered lines PP-OCRv6 tiny read exactly (`tools/make_ctc_fixtures.py --random
/// 300`, seeds 1 and 2: 3265 and 3282 glyphs of 9 DejaVu faces, 20-38 px, dark on light and light
/// on dark, some blurred or noisy), the share of characters whose box has IoU ≥ 0.5 with the
/// glyph's ink box: `midpoints` 89.4 % and 88.1 % (81.5 % and 78.9 % with steps centred on
/// 8t + 3.5, the naive guess), `inkGaps` 99.3 % and 98.4 % (99.0 % and 97.6 % without
/// `wordPieces`). What `inkGaps` still misses: glyphs that overlap in columns ("ff", "tt" of
/// italic or tight faces) and 1-2 px wide strokes ("l", "i") where a column's error halves the IoU.
public enum CharacterBoxes {
    /// How the columns between two characters are divided.
    public enum Method: Sendable {
        /// Halfway between the two characters' step-run centres; the first and last character
        /// reach half a character pitch beyond theirs. The step centres are uncertain by ±4
        /// columns (a step is 8 wide), so a narrow character next to a wide one loses ink to it.
        case midpoints
        /// At the column near that halfway point with the least ink, a run of inkless columns (a gap
        /// between glyphs) counting as one column at its middle, so a gap wins unless a much
        /// nearer column has almost no ink (touching glyphs); the cut must leave ink on both sides.
        /// Then, where a word holds as many pieces of ink as characters, one piece a character
        /// (`wordPieces`). The first and last character take the ink around their centre up to a
        /// pitch away, stopping at a wide gap (`outerGap`).
        case inkGaps
    }

    public struct Options: Sendable {
        public var method = Method.inkGaps
        /// Step t is centred on crop column `CTCDecoding.stepWidth * t + stepCentreOffset`
        /// (pixel-centre coordinates). Measured by `tools/make_ctc_fixtures.py --offset` on PP-OCRv6
        /// tiny: over 4693 characters of 348 rendered lines it read exactly, a glyph's ink centre
        /// lies a median 0.5 (mean 0.52, spread 2.7) columns right of 8 × its step run's centre.
        /// The network's step t thus looks at columns 8t - 3 ... 8t + 4, not 8t ... 8t + 7.
        public var stepCentreOffset = 0.5
        /// `midpoints`: the first and last character reach this many pitches beyond their centres.
        public var outerReach = 0.5
        /// `inkGaps`: ...this many pitches, at least `minimumOuterReach` crop heights.
        public var gapOuterReach = 1.0
        public var minimumOuterReach = 0.5
        /// `inkGaps`: the first and last character stop at an inkless gap this many crop heights
        /// wide (a 48-px crop: 7 columns, wider than the gaps inside a glyph like " or 川).
        public var outerGap = 0.15
        /// `inkGaps`: the cut is looked for between the two centres and this many columns beyond
        /// (a centre is uncertain by a step, 8 columns).
        public var gapSlack = 2.0
        /// `inkGaps`: the cut goes to the column minimising its ink pixels + this × its distance
        /// (columns) from the halfway point. The measurement above: 0.1-0.5 within 0.5 %, 1 worse.
        public var distanceWeight = 0.25
        /// `inkGaps`: a word with as many pieces of ink as characters gets one piece a character
        /// (`matchWordPieces`); +0.3 and +0.8 points in the measurement above.
        public var wordPieces = true
        /// The pitch (centre-to-centre distance) of a line with one character, in crop heights.
        public var singleCharacterPitch = 0.6

        /// Which pixels are ink (`TextInk.Parameters`).
        public var ink = TextInk.Parameters()

        public init() {}
    }

    /// A character's box in the crop, in pixel-centre coordinates (a pixel spans ±0.5 around its
    /// centre, so one pixel at column 3 is left 2.5, right 3.5).
    public struct CropBox: Sendable, Equatable {
        public var left: Double
        public var top: Double
        public var right: Double
        public var bottom: Double
        public init(left: Double, top: Double, right: Double, bottom: Double) {
            self.left = left
            self.top = top
            self.right = right
            self.bottom = bottom
        }
        /// Top-left, top-right, bottom-right, bottom-left.
        public var quad: Quad {
            Quad(topLeft: Point(x: left, y: top), topRight: Point(x: right, y: top),
                 bottomRight: Point(x: right, y: bottom), bottomLeft: Point(x: left, y: bottom))
        }
    }

    /// One quad in the photo for each of `line.characters`, in order: the box around its ink in
    /// `crop` (`boxesInCrop`) mapped by `cropToPhoto`, which takes crop pixel-centre coordinates
    /// to the photo's (as `Homography.rectangle(width:height:to:)` makes it for a warped crop).
    /// `cropWidth` is the line's real width in the crop; columns beyond it are padding.
    public static func boxes(for line: DecodedLine, crop: TextLineCrop, cropWidth: Int, cropToPhoto: Homography,
                             options: Options = Options()) -> [Quad] {
        boxesInCrop(for: line, crop: crop, cropWidth: cropWidth, options: options).map { box in
            Quad(corners: box.quad.corners.map(cropToPhoto.apply))
        }
    }

    /// One box in the crop for each of `line.characters`: its span of columns trimmed to the ink
    /// in it; a span without ink keeps its columns and takes the rows of the line's ink (all rows
    /// when the crop has none).
    public static func boxesInCrop(for line: DecodedLine, crop: TextLineCrop, cropWidth: Int,
                                   options: Options = Options()) -> [CropBox] {
        let characters = line.characters
        guard !characters.isEmpty, cropWidth > 0, crop.height > 0 else { return [] }
        let ink = TextInk(crop, width: cropWidth, parameters: options.ink)
        let centres = characters.map {
            Double(CTCDecoding.stepWidth) * Double($0.firstStep + $0.lastStep) / 2 + options.stepCentreOffset
        }
        let pitch = self.pitch(centres: centres, characters: characters, height: crop.height, options: options)
        let spans: [Range<Int>]
        switch options.method {
        case .midpoints:
            spans = midpointSpans(centres: centres, pitch: pitch, width: cropWidth, options: options)
        case .inkGaps:
            spans = gapSpans(centres: centres, startsWord: characters.map(\.startsWord), pitch: pitch, ink: ink, options: options)
        }
        let lineRows = ink.inkedRows(in: 0...(cropWidth - 1)) ?? 0...(crop.height - 1)
        return spans.map { span in
            if let columns = ink.inkedColumns(in: span), let rows = ink.inkedRows(in: columns) {
                return CropBox(left: Double(columns.lowerBound) - 0.5, top: Double(rows.lowerBound) - 0.5,
                               right: Double(columns.upperBound) + 0.5, bottom: Double(rows.upperBound) + 0.5)
            }
            return CropBox(left: Double(span.lowerBound) - 0.5, top: Double(lineRows.lowerBound) - 0.5,
                           right: Double(max(span.lowerBound, span.upperBound - 1)) + 0.5, bottom: Double(lineRows.upperBound) + 0.5)
        }
    }

    /// The median distance between the centres of neighbours within a word (between any
    /// neighbours when no word has two characters), or `singleCharacterPitch` crop heights.
    static func pitch(centres: [Double], characters: [DecodedCharacter], height: Int, options: Options) -> Double {
        var within: [Double] = [], all: [Double] = []
        for i in 1..<max(1, centres.count) {
            all.append(centres[i] - centres[i - 1])
            if !characters[i].startsWord { within.append(centres[i] - centres[i - 1]) }
        }
        let distances = (within.isEmpty ? all : within).sorted()
        guard !distances.isEmpty else { return options.singleCharacterPitch * Double(height) }
        let n = distances.count
        return n % 2 == 1 ? distances[n / 2] : (distances[n / 2 - 1] + distances[n / 2]) / 2
    }

    /// The first column at or right of `x` (pixel-centre coordinates): columns < the result lie left of x.
    static func boundary(_ x: Double) -> Int { Int(x.rounded(.up)) }

    /// `Method.midpoints`' spans (half-open column ranges, possibly empty), clamped to 0..<width.
    static func midpointSpans(centres: [Double], pitch: Double, width: Int, options: Options) -> [Range<Int>] {
        let reach = options.outerReach * pitch
        var cuts = [boundary(centres[0] - reach)]
        for i in 1..<centres.count { cuts.append(boundary((centres[i - 1] + centres[i]) / 2)) }
        cuts.append(boundary(centres[centres.count - 1] + reach))
        return spans(between: cuts, width: width)
    }

    /// Consecutive cuts as spans, each cut clamped to 0...width and to the one before it.
    static func spans(between cuts: [Int], width: Int) -> [Range<Int>] {
        var previous = 0
        let clamped = cuts.map { cut in
            previous = min(width, max(previous, cut))
            return previous
        }
        return (1..<clamped.count).map { clamped[$0 - 1]..<clamped[$0] }
    }

    /// `Method.inkGaps`' spans.
    static func gapSpans(centres: [Double], startsWord: [Bool], pitch: Double, ink: TextInk, options: Options) -> [Range<Int>] {
        let width = ink.width, counts = ink.columnCounts
        let height = Double(ink.height)
        let reach = max(options.gapOuterReach * pitch, options.minimumOuterReach * height)
        let outerGap = max(1, Int((options.outerGap * height).rounded()))
        var cuts = [outerCut(from: centres[0], towards: -1, reach: reach, gap: outerGap, counts: counts)]
        for i in 1..<centres.count {
            let lower = max(cuts[i - 1], 0)
            let middle = (centres[i - 1] + centres[i]) / 2
            let from = max(lower + 1, boundary(centres[i - 1] - options.gapSlack))
            let to = min(width, boundary(centres[i] + options.gapSlack))
            // Ink must remain on the right of the cut before the next character's reach ends.
            let rightEnd = min(width, boundary(centres[i] + pitch / 2 + options.gapSlack))
            cuts.append(gapCut(middle: middle, lower: lower, from: from, to: to, rightEnd: rightEnd,
                               counts: counts, options: options))
        }
        cuts.append(outerCut(from: centres[centres.count - 1], towards: 1, reach: reach, gap: outerGap, counts: counts))
        // Steps beyond the crop's width (a caller's validSteps too large) put centres outside it.
        cuts = cuts.map { min(width, max(0, $0)) }
        if options.wordPieces {
            matchWordPieces(&cuts, startsWord: startsWord, counts: counts)
        }
        return spans(between: cuts, width: width)
    }

    /// Where a word's span holds as many pieces of ink (runs of inked columns) as it has
    /// characters, the cuts inside it go to the middles of the gaps between the pieces, one piece
    /// a character: the order of the characters is certain where their steps are not (CTC may
    /// fire a step or more early or late; in "Hello" at 24 px, 10 columns).
    static func matchWordPieces(_ cuts: inout [Int], startsWord: [Bool], counts: [Int]) {
        var first = 0
        while first < startsWord.count {
            var last = first
            while last + 1 < startsWord.count, !startsWord[last + 1] { last += 1 }
            defer { first = last + 1 }
            guard last > first, cuts[first] < cuts[last + 1] else { continue }
            var pieces: [ClosedRange<Int>] = []
            var x = cuts[first]
            while x < cuts[last + 1] {
                guard counts[x] > 0 else { x += 1; continue }
                let start = x
                while x < cuts[last + 1], counts[x] > 0 { x += 1 }
                pieces.append(start...(x - 1))
            }
            guard pieces.count == last - first + 1 else { continue }
            for k in 1..<pieces.count {
                cuts[first + k] = (pieces[k - 1].upperBound + 1 + pieces[k].lowerBound + 1) / 2
            }
        }
    }

    /// The cut between two characters (`Method.inkGaps`): of the columns in from..<to, the
    /// one with the least ink pixels + `distanceWeight` x its distance from `middle`, an inkless
    /// run counting as one column at its middle; a cut must leave ink between `lower` and it and
    /// between it and `rightEnd` where one can. Columns with ink are given to the left character.
    static func gapCut(middle: Double, lower: Int, from: Int, to: Int, rightEnd: Int, counts: [Int], options: Options) -> Int {
        // Cuts leaving a side without ink count only when every cut does (a character read
        // where there is no ink, or past the crop's end, then keeps no ink of its neighbour's).
        var best: (cut: Int, inklessSides: Int, cost: Double)?
        func consider(cut: Int, at position: Double, ink: Int) {
            let inklessSides = ((lower..<cut).contains { counts[$0] > 0 } ? 0 : 1)
                + ((cut..<max(cut, rightEnd)).contains { counts[$0] > 0 } ? 0 : 1)
            let cost = Double(ink) + options.distanceWeight * abs(position - middle)
            if best == nil || (inklessSides, cost) < (best!.inklessSides, best!.cost) { best = (cut, inklessSides, cost) }
        }
        var x = from
        while x < to {
            guard counts[x] == 0 else {
                consider(cut: x + 1, at: Double(x), ink: counts[x])
                x += 1
                continue
            }
            // An inkless run (it may run on past `to`: its columns are all alike): cut at its middle.
            var start = x
            while start > lower, counts[start - 1] == 0 { start -= 1 }
            var end = x
            while end < counts.count, counts[end] == 0 { end += 1 }
            consider(cut: (start + end + 1) / 2, at: Double(start + end - 1) / 2, ink: 0)
            x = end
        }
        return best?.cut ?? max(lower, boundary(middle))
    }

    /// How far the line's first (`towards` -1) or last (+1) character reaches from `centre`:
    /// through ink and gaps narrower than `gap`, at most `reach`; the cut beyond its last ink.
    static func outerCut(from centre: Double, towards direction: Int, reach: Double, gap: Int, counts: [Int]) -> Int {
        let width = counts.count
        let start = min(width - 1, max(0, Int(centre.rounded())))
        let limit = direction < 0 ? max(0, boundary(centre - reach)) : min(width - 1, Int((centre + reach).rounded(.down)))
        var lastInk: Int?
        var blank = 0
        var x = start
        while direction < 0 ? x >= limit : x <= limit {
            if counts[x] > 0 {
                lastInk = x
                blank = 0
            } else if lastInk != nil {
                blank += 1
                if blank >= gap { break }
            }
            x += direction
        }
        // No ink near the centre: keep the reach, the span's box then covers it.
        guard let lastInk else { return direction < 0 ? limit : limit + 1 }
        return direction < 0 ? lastInk : lastInk + 1
    }
}
