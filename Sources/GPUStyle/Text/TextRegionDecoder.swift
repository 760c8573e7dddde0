/// Text regions from a DB text detector's probability map (Differentiable Binarization: Liao,
/// Wan, Yao, Chen and Bai, AAAI 2020), post-processed as PaddleOCR's `DBPostProcess` does with
/// its default "fast" box score:
/// 1. map pixels above `threshold` (strictly) are text; regions are their 8-connected sets
///    (`TextRegionOutlines`), the first `maximumRegions` of them in raster order. Only outer
///    outlines count: PaddleOCR's `cv2.findContours(..., RETR_LIST, ...)` also returns each
///    hole's border as a contour and so may add a box around a hole (rare in DB maps);
/// 2. each region's minimum-area rectangle (`MinimumAreaRectangle`) over its pixel centres,
///    so a region of w x h pixels gives a (w - 1) x (h - 1) rectangle, as PaddleOCR's contour
///    through the border pixels' centres does: the unclip ratio was tuned on those sizes;
///    dropped when its shorter side is below `minimumSide`;
/// 3. score: the mean probability over the rectangle's pixels, counted as PaddleOCR counts
///    them (`TextBoxScore`); dropped below `boxThreshold`;
/// 4. unclip: the rectangle grown by d = area x `unclipRatio` / perimeter (`ConvexOffset`), and
///    the minimum-area rectangle of that; dropped when its shorter side is below
///    `minimumSide` + `grownSideMargin`;
/// 5. corners in reading direction and regions in reading order (`TextReadingOrder`).
/// Quads stay in map pixels; `TextRegion.scaled` maps them to the photo.
///
/// Against OpenCV (tools/make_text_region_fixtures.py: cv2.findContours, cv2.minAreaRect,
/// cv2.fillPoly and the unclip step, on three maps with 35 boxes) the boxes agree within
/// 1e-4 px and the scores within 1e-6.
///
/// Speed: a 960 x 960 map with 200 text lines (60-80 x 12-20 px, tilted up to ±5°) decodes
/// in about 2 ms (1.5-2.3 ms over 8 runs, each the fastest of 10) on one core of an
/// "Intel(R) Xeon(R) Processor" (lscpu's model name; a 2-core cloud VM), in the test build
/// (this module is compiled -Ounchecked in every configuration);
/// TextRegionTimingTests.testDecodeTime prints it.
public enum TextRegionDecoder {
    /// A grown rectangle's shorter side must be at least `minimumSide` + this (PaddleOCR's
    /// `min_size + 2`).
    static let grownSideMargin = 2.0

    /// The text regions of `probabilities` (row-major, `height` rows of `width`, values in
    /// 0...1), in reading order.
    public static func regions(probabilities: [Float], width: Int, height: Int,
                               options: TextRegionOptions = TextRegionOptions()) -> [TextRegion] {
        precondition(width >= 0 && height >= 0 && probabilities.count == width * height,
                     "the map holds height x width values")
        return probabilities.withUnsafeBufferPointer { map in
            let outlines = TextRegionOutlines(map: map, width: width, height: height,
                                              threshold: options.threshold, limit: options.maximumRegions)
            var found: [TextRegion] = []
            for range in outlines.ranges {
                let hull = ConvexHull.hull(rasterOrdered: outlines.points[range])
                guard let core = MinimumAreaRectangle(hull: hull), core.shorterSide >= options.minimumSide,
                      let score = TextBoxScore.mean(of: map, width: width, height: height, corners: core.corners),
                      Float(score) >= options.boxThreshold else { continue }
                let distance = core.area * options.unclipRatio / (2 * (core.length + core.breadth))
                guard let grown = MinimumAreaRectangle(points: ConvexOffset.offset(core.corners, by: distance)),
                      grown.shorterSide >= options.minimumSide + grownSideMargin else { continue }
                found.append(TextRegion(quad: TextReadingOrder.quad(grown), score: Float(score)))
            }
            return TextReadingOrder.sorted(found)
        }
    }
}
