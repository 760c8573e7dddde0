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
        var sorted = values.sorted()
        func quantile(_ q: Double) -> Float {
            sorted[min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))]
        }
        guard !sorted.isEmpty else {
            isInk = []
            columnCounts = [Int](repeating: 0, count: width)
            darkText = true
            return
        }
        let background = quantile(0.5)
        let below = background - quantile(parameters.extremeQuantile)
        let above = quantile(1 - parameters.extremeQuantile) - background
        sorted = []
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
