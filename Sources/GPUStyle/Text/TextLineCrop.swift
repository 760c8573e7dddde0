/// A grey view of a text-line crop (the straightened line the recogniser reads), for finding
/// where its characters' ink is.
public struct TextLineCrop: Sendable {
    public let width: Int
    public let height: Int
    /// `[height][width]` brightness in 0...1, as `Image`'s channels.
    public let luminance: [Float]

    public init(width: Int, height: Int, luminance: [Float]) {
        precondition(width >= 0 && height >= 0 && luminance.count == width * height, "luminance must hold height x width values")
        self.width = width
        self.height = height
        self.luminance = luminance
    }

    /// Rec. 601 luma of `image` (Y' = 0.299 R' + 0.587 G' + 0.114 B', on the gamma-encoded values).
    public init(_ image: Image) {
        let plane = image.pixelCount
        var luminance = [Float](repeating: 0, count: plane)
        image.rgb.withUnsafeBufferPointer { rgb in
            for i in 0..<plane {
                luminance[i] = 0.299 * rgb[i] + 0.587 * rgb[plane + i] + 0.114 * rgb[2 * plane + i]
            }
        }
        self.init(width: image.width, height: image.height, luminance: luminance)
    }
}

/// Which pixels of a text-line crop are ink: those that differ from the background, towards the
/// text's side, by more than a share of the line's ink contrast.
///
/// Text may be dark on light or light on dark. The background is the median brightness (a line
/// crop is mostly background); the text's side is the one whose extreme quantile lies farther
/// from it (ink makes a heavy tail, on one side only); the ink contrast is that distance.
public struct TextInk: Sendable {
    public struct Parameters: Sendable {
        /// The quantile (and 1 minus it) that measures how far the ink reaches from the
        /// background: 1 % of a line crop is ink even for one thin glyph in a wide crop.
        public var extremeQuantile = 0.01
        /// A pixel is ink beyond this share of the ink contrast: half, so a glyph's ink is the
        /// pixels it covers more than half, as a renderer's or a blurred edge's.
        public var inkShare: Float = 0.5
        /// Below this contrast (brightness 0...1) the crop holds no ink: noise and shading only.
        public var minimumContrast: Float = 0.08

        public init() {}
    }

    /// Columns considered (the crop's real width, padding excluded) and rows.
    let width: Int
    let height: Int
    /// `[height][width]`: whether the pixel is ink.
    let isInk: [Bool]
    /// Ink pixels in each column.
    let columnCounts: [Int]
    /// Whether the text is dark on a light background.
    let darkText: Bool

    init(_ crop: TextLineCrop, width: Int, parameters: Parameters = Parameters()) {
        precondition((0...crop.width).contains(width), "the text's width must lie within the crop")
        self.width = width
        height = crop.height
        var values: [Float] = []
        values.reserveCapacity(width * height)
        for y in 0..<height { values += crop.luminance[(y * crop.width)..<(y * crop.width + width)] }
        guard !values.isEmpty else {
            isInk = []
            columnCounts = [Int](repeating: 0, count: width)
            darkText = true
            return
        }
        // The three quantiles as `values.sorted()` would give them, by selection: sorting a
        // line's 50-60k values took 2-3 ms a line, more than its CTC decoding.
        var scratch = values
        func index(_ q: Double) -> Int { min(values.count - 1, max(0, Int((q * Double(values.count - 1)).rounded()))) }
        let middle = index(0.5), low = index(parameters.extremeQuantile), high = index(1 - parameters.extremeQuantile)
        let background = Selection.kthSmallest(&scratch, middle, in: 0..<scratch.count)
        // Selection leaves the smaller values before the middle and the larger ones after it.
        let lowValue = low < middle ? Selection.kthSmallest(&scratch, low, in: 0..<middle) : scratch[low]
        let highValue = high > middle ? Selection.kthSmallest(&scratch, high, in: (middle + 1)..<scratch.count) : scratch[high]
        scratch = []
        let below = background - lowValue
        let above = highValue - background
        darkText = below >= above
        let contrast = max(below, above)
        let threshold = max(parameters.minimumContrast, parameters.inkShare * contrast)
        var isInk = [Bool](repeating: false, count: width * height)
        var counts = [Int](repeating: 0, count: width)
        if contrast >= parameters.minimumContrast {
            let sign: Float = darkText ? 1 : -1
            for y in 0..<height {
                for x in 0..<width where sign * (background - values[y * width + x]) > threshold {
                    isInk[y * width + x] = true
                    counts[x] += 1
                }
            }
        }
        self.isInk = isInk
        columnCounts = counts
    }

    /// The first and last inked column in `columns` (nil when none is).
    func inkedColumns(in columns: Range<Int>) -> ClosedRange<Int>? {
        guard let first = columns.first(where: { columnCounts[$0] > 0 }),
              let last = columns.reversed().first(where: { columnCounts[$0] > 0 }) else { return nil }
        return first...last
    }

    /// The first and last row with ink in `columns` (nil when none has).
    func inkedRows(in columns: ClosedRange<Int>) -> ClosedRange<Int>? {
        func inked(_ y: Int) -> Bool { columns.contains { isInk[y * width + $0] } }
        guard let first = (0..<height).first(where: inked), let last = (0..<height).reversed().first(where: inked) else { return nil }
        return first...last
    }
}

/// Order statistics without sorting.
enum Selection {
    /// The value `values.sorted()[k]` would hold, for `k` in `range` and the values in `range`
    /// (Hoare's FIND with median-of-three pivots, expected linear time): the values in `range` are
    /// reordered so that those before `k` are not larger than it and those after not smaller.
    static func kthSmallest(_ values: inout [Float], _ k: Int, in range: Range<Int>) -> Float {
        precondition(range.contains(k), "k lies outside the range")
        return values.withUnsafeMutableBufferPointer { a in
            var low = range.lowerBound, high = range.upperBound - 1
            while low < high {
                let mid = low + (high - low) / 2
                // The median of the first, middle and last values.
                let x = a[low], y = a[mid], z = a[high]
                let pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y))
                var i = low, j = high
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while pivot < a[j] { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                // [low, j] <= pivot <= [i, high], and the values between equal the pivot.
                if k <= j {
                    high = j
                } else if k >= i {
                    low = i
                } else {
                    return a[k]
                }
            }
            return a[k]
        }
    }
}
