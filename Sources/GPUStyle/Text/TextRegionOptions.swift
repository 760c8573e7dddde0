/// How `TextRegionDecoder` turns a DB text detector's probability map into text regions. The
/// defaults are PaddleOCR's `DBPostProcess` defaults (ppocr/postprocess/db_postprocess.py:
/// thresh 0.3, box_thresh 0.6, unclip_ratio 1.5, min_size 3, max_candidates 1000), which its
/// DB models were tuned with.
public struct TextRegionOptions: Sendable, Equatable {
    /// A map pixel is text when its probability is above this (strictly, as PaddleOCR's
    /// `pred > thresh`). DB's probability map marks a shrunk core of each text line
    /// (Liao et al., "Real-time Scene Text Detection with Differentiable Binarization", AAAI
    /// 2020), so a low threshold keeps the core whole.
    public var threshold: Float = 0.3
    /// A region is kept only when the mean probability inside its minimum-area rectangle is at
    /// least this: a faint blob that barely crossed `threshold` is not text.
    public var boxThreshold: Float = 0.6
    /// The shrunk core is grown back by d = area x ratio / perimeter of its rectangle (the
    /// inverse of the training-time shrink D = area x (1 - r^2) / perimeter with r = 0.4, which
    /// 1.5 roughly undoes).
    public var unclipRatio: Double = 1.5
    /// Regions whose core rectangle has a shorter side below this (map pixels) are dropped, and
    /// grown rectangles whose shorter side is below this + 2 (noise specks and hairlines).
    public var minimumSide: Double = 3
    /// At most this many connected regions are looked at, the first ones in a raster scan of
    /// their first pixel (PaddleOCR's max_candidates: it bounds the work on a noisy map).
    public var maximumRegions: Int = 1000

    public init() {}
}
