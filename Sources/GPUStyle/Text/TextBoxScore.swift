/// A text box's score: the mean probability over the pixels of the box's rectangle, counted as
/// PaddleOCR's "fast" score counts them, so that its 0.6 box threshold means the same here.
///
/// PaddleOCR (`box_score_fast`) truncates the rectangle's corners to integers and fills them
/// with `cv2.fillPoly` in the rectangle's bounding box. Measured against OpenCV 4.14
/// (opencv-python-headless) on 500 random rotated rectangles, that mask is exactly: the pixels
/// whose centres lie inside or on the integer polygon, plus the pixels of each side drawn as an
/// 8-connected line (on each step along the longer axis, the pixel nearest the side; a tie goes
/// to the side's end with the smaller x). The line pixels reach up to half a pixel outside, so
/// on a tilted text box, whose outside is dark, this mean is lower than the plain inside mean:
/// by 0.04-0.09 on the fixtures' tilted boxes (tools/make_text_region_fixtures.py).
enum TextBoxScore {
    /// Corners this close below an integer count as that integer before they are truncated: a
    /// corner computed as 131.9999999 for 132 must not lose a column (OpenCV's float32 corners
    /// can fall either side, so PaddleOCR itself is unsteady there).
    static let integerTolerance = 1e-6

    /// The mean of `map` (row-major, `height` rows of `width`) over the mask of `corners` (a
    /// convex polygon, either orientation); nil when the mask misses the map.
    static func mean(of map: UnsafeBufferPointer<Float>, width: Int, height: Int, corners: [Point]) -> Double? {
        let n = corners.count
        guard n >= 3, width > 0, height > 0 else { return nil }
        let xs = corners.map { Int(($0.x + integerTolerance).rounded(.down)) }
        let ys = corners.map { Int(($0.y + integerTolerance).rounded(.down)) }
        let top = ys.min()!, bottom = ys.max()!
        var left = [Int](repeating: .max, count: bottom - top + 1)
        var right = [Int](repeating: .min, count: bottom - top + 1)
        @inline(__always) func include(_ x: Int, _ y: Int) {
            left[y - top] = min(left[y - top], x)
            right[y - top] = max(right[y - top], x)
        }
        // Pixel centres inside or on the polygon: per row, between the sides crossing it.
        for y in top...bottom {
            var low = Double.infinity, high = -Double.infinity
            for i in 0..<n {
                let j = i + 1 == n ? 0 : i + 1
                let (ax, ay, bx, by) = (xs[i], ys[i], xs[j], ys[j])
                if ay == by {
                    if ay == y { low = min(low, Double(min(ax, bx))); high = max(high, Double(max(ax, bx))) }
                } else if min(ay, by) <= y && y <= max(ay, by) {
                    let x = Double(ax) + Double(y - ay) * Double(bx - ax) / Double(by - ay)
                    low = min(low, x)
                    high = max(high, x)
                }
            }
            if low <= high {
                include(Int((low - 1e-9).rounded(.up)), y)
                include(Int((high + 1e-9).rounded(.down)), y)
            }
        }
        // The sides as 8-connected lines.
        for i in 0..<n {
            let j = i + 1 == n ? 0 : i + 1
            var (x0, y0, x1, y1) = (xs[i], ys[i], xs[j], ys[j])
            if x0 > x1 { (x0, y0, x1, y1) = (x1, y1, x0, y0) }
            let dx = x1 - x0, dy = y1 - y0
            if dx >= abs(dy) {
                for x in x0...x1 { include(x, y0 + nearestTowardZero((x - x0) * dy, max(dx, 1))) }
            } else {
                let step = dy > 0 ? 1 : -1
                for y in stride(from: y0, through: y1, by: step) { include(x0 + nearestTowardZero((y - y0) * dx, dy), y) }
            }
        }
        let firstRow = max(top, 0), lastRow = min(bottom, height - 1)
        guard firstRow <= lastRow else { return nil }
        var sum = 0.0, count = 0
        for y in firstRow...lastRow {
            let first = max(left[y - top], 0), last = min(right[y - top], width - 1)
            guard first <= last else { continue }
            var rowSum: Float = 0
            let base = y * width
            for x in first...last { rowSum += map[base + x] }
            sum += Double(rowSum)
            count += last - first + 1
        }
        return count == 0 ? nil : sum / Double(count)
    }

    /// The integer nearest `numerator / denominator`, a tie going toward zero.
    @inline(__always)
    static func nearestTowardZero(_ numerator: Int, _ denominator: Int) -> Int {
        var (p, q) = (numerator, denominator)
        if q < 0 { (p, q) = (-p, -q) }
        var floor = p / q
        if p % q != 0 && p < 0 { floor -= 1 }
        let twice = 2 * (p - floor * q)
        if twice < q { return floor }
        if twice > q { return floor + 1 }
        return floor >= 0 ? floor : floor + 1
    }
}
