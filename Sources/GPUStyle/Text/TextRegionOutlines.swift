/// The connected regions of a thresholded probability map, as the outline points their convex
/// hulls need, found in one raster pass over the map.
///
/// Each row is cut into runs (maximal horizontal stretches of pixels above the threshold), and a
/// run joins (union-find with path halving: Tarjan and van Leeuwen, JACM 31(2), 1984) every
/// run of the row above that touches it or touches it diagonally: 8-connectivity, as OpenCV's
/// `findContours` traces the outer borders PaddleOCR takes. Memory is a few integers per run (at most
/// ceil(width / 2) runs per row) and the work is one look at each pixel plus near-constant work
/// per run: no recursion, no per-pixel label image.
///
/// A region's outline points are the pixel centres at both ends of its runs. Every pixel of the
/// region lies on a segment between two of them, so their convex hull is the hull of the
/// region's pixel centres, which is the hull of PaddleOCR's contour (OpenCV's contour runs
/// through the centres of the region's border pixels): a region of w x h pixels gives a
/// w - 1 by h - 1 rectangle, as there. Holes do not matter to a hull.
struct TextRegionOutlines {
    /// The points of all regions, region after region; within a region in raster order (by y,
    /// then x), the order `ConvexHull.hull(rasterOrdered:)` needs.
    var points: [Point]
    /// Region i's points are `points[ranges[i]]`. Regions come in the raster order of their
    /// first pixel.
    var ranges: [Range<Int>]

    /// The regions of `map` (row-major, `height` rows of `width`) whose pixels are above
    /// `threshold`, the first `limit` of them.
    init(map: UnsafeBufferPointer<Float>, width: Int, height: Int, threshold: Float, limit: Int) {
        precondition(map.count == width * height, "the map holds height x width values")
        var starts: [Int32] = [], ends: [Int32] = [], rows: [Int32] = [], parent: [Int32] = []

        func find(_ i: Int32) -> Int32 {
            var i = i
            while parent[Int(i)] != i {
                parent[Int(i)] = parent[Int(parent[Int(i)])]
                i = parent[Int(i)]
            }
            return i
        }

        var previous = 0..<0
        for y in 0..<height {
            let base = y * width
            let first = starts.count
            // The first run of the row above that may still touch this run or a later one.
            var k = previous.lowerBound
            var x = 0
            while x < width {
                while x < width && !(map[base + x] > threshold) { x += 1 }
                if x == width { break }
                let start = x
                while x < width && map[base + x] > threshold { x += 1 }
                let end = x - 1
                let run = Int32(starts.count)
                starts.append(Int32(start)); ends.append(Int32(end)); rows.append(Int32(y)); parent.append(run)
                // Runs above ending left of start - 1 touch neither this run nor later ones.
                while k < previous.upperBound && Int(ends[k]) < start - 1 { k += 1 }
                var j = k
                while j < previous.upperBound && Int(starts[j]) <= end + 1 {
                    // Union: the root with the smaller index (the earlier first run) stays root,
                    // so a region's root is its first run in raster order.
                    let a = find(Int32(j)), b = find(run)
                    if a < b { parent[Int(b)] = a } else if b < a { parent[Int(a)] = b }
                    j += 1
                }
            }
            previous = first..<starts.count
        }

        // Number the regions by their root run, in raster order, and count their points.
        let runCount = starts.count
        var label = [Int32](repeating: -1, count: runCount)
        var counts: [Int] = []
        for i in 0..<runCount {
            let root = Int(find(Int32(i)))
            if root == i {
                label[i] = Int32(counts.count)
                counts.append(0)
            } else {
                label[i] = label[root]
            }
            let region = Int(label[i])
            if region < limit { counts[region] += starts[i] == ends[i] ? 1 : 2 }
        }
        let kept = min(counts.count, max(0, limit))
        var offsets = [Int](repeating: 0, count: kept + 1)
        for r in 0..<kept { offsets[r + 1] = offsets[r] + counts[r] }
        ranges = (0..<kept).map { offsets[$0]..<offsets[$0 + 1] }
        // Runs are in raster order, so each region's points land in raster order too.
        var fill = offsets
        var points = [Point](repeating: Point(x: 0, y: 0), count: offsets[kept])
        for i in 0..<runCount {
            let r = Int(label[i])
            guard r < kept else { continue }
            let y = Double(rows[i])
            points[fill[r]] = Point(x: Double(starts[i]), y: y)
            fill[r] += 1
            if starts[i] != ends[i] {
                points[fill[r]] = Point(x: Double(ends[i]), y: y)
                fill[r] += 1
            }
        }
        self.points = points
    }
}
