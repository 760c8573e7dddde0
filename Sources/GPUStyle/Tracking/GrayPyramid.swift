/// One grayscale plane, row-major, values in [0, 1].
struct GrayPlane {
    var width = 0
    var height = 0
    var pixels: [Float] = []

    /// Resizes without keeping the contents; reuses the storage when it is large enough, so a
    /// tracker that sees the same frame size every time allocates only on its first frame.
    mutating func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        if pixels.count != width * height { pixels = [Float](repeating: 0, count: width * height) }
    }

    mutating func clear() {
        pixels.withUnsafeMutableBufferPointer { p in
            if let base = p.baseAddress { base.update(repeating: 0, count: p.count) }
        }
    }
}

/// The luma of a video frame, box-reduced to the tracker's working size, and a few 2× box
/// reductions of it.
///
/// Coordinates follow `Point` at every level (pixel centres at integers). A working pixel
/// averages `factor` × `factor` frame pixels, so frame x = factor · working x + (factor − 1) / 2;
/// a level-(k+1) pixel averages 2 × 2 level-k pixels, so x(k) = 2 x(k+1) + 0.5.
///
/// Only a rectangle of interest is computed (where the picture was, plus a margin the tracker
/// can reach in one frame); the rest of every level is zero, which no window can lock onto (a
/// flat window fails Lucas-Kanade's eigenvalue test). Reading the frame is the largest single
/// cost of tracking, and this way it grows with the picture, not with the camera's resolution.
struct GrayPyramid {
    /// Frame size this pyramid was built from.
    private(set) var frameWidth = 0
    private(set) var frameHeight = 0
    /// Frame pixels per working pixel along each axis.
    private(set) var factor = 1
    /// Level 0 is the working image; each further level halves it.
    private(set) var levels: [GrayPlane] = []
    /// One row of block sums, kept between frames.
    private var rows: [Float] = []

    /// Rebuilds the pyramid from `image`, reusing the existing storage. Only the working pixels
    /// within `margin` working pixels of `box` (frame coordinates; nil for the whole frame) are
    /// computed, at every level.
    mutating func build(from image: Image, maximumWorkingPixels: Int, levelCount: Int, smallestSide: Int,
                        around box: (x: Double, y: Double, width: Double, height: Double)? = nil, margin: Int = 0) {
        frameWidth = image.width
        frameHeight = image.height
        // An integer box (`Image.boxFactor`) makes the cost of everything after it nearly
        // independent of the camera's resolution.
        factor = Image.boxFactor(width: image.width, height: image.height, maximumPixels: max(1, maximumWorkingPixels))
        let count = max(1, levelCount)
        if levels.count != count { levels = [GrayPlane](repeating: GrayPlane(), count: count) }
        let ww = image.width / factor, wh = image.height / factor
        var region = (x0: 0, y0: 0, x1: ww, y1: wh)
        if let box {
            let a = toWorking(Point(x: box.x, y: box.y)), b = toWorking(Point(x: box.x + box.width, y: box.y + box.height))
            // Clamped in Double first: a corner far off screen must not overflow Int.
            func clamp(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, 0), Double(limit))) }
            region = (clamp((a.x - Double(margin)).rounded(.down), ww), clamp((a.y - Double(margin)).rounded(.down), wh),
                      clamp((b.x + Double(margin)).rounded(.up) + 1, ww), clamp((b.y + Double(margin)).rounded(.up) + 1, wh))
        }
        Self.luma(image, factor: factor, region: region, into: &levels[0], scratch: &rows)
        var used = 1
        while used < count, min(levels[used - 1].width, levels[used - 1].height) / 2 >= smallestSide {
            // Half the region, rounded outwards.
            region = (region.x0 / 2, region.y0 / 2, (region.x1 + 1) / 2, (region.y1 + 1) / 2)
            Self.halve(levels[used - 1], region: region, into: &levels[used])
            used += 1
        }
        // A tiny frame gets fewer levels: a plane smaller than a tracking window says nothing.
        if used < levels.count { levels.removeLast(levels.count - used) }
    }

    func toWorking(_ p: Point) -> Point {
        let f = Double(factor), o = Double(factor - 1) / 2
        return Point(x: (p.x - o) / f, y: (p.y - o) / f)
    }

    /// The homography taking working coordinates to frame coordinates.
    var workingToFrame: Homography {
        let f = Double(factor), o = Double(factor - 1) / 2
        return Homography(matrix: [f, 0, o, 0, f, o, 0, 0, 1])
    }

    /// Rec. 601 luma (Y' = 0.299 R' + 0.587 G' + 0.114 B', ITU-R BT.601) of the gamma-encoded
    /// values as stored, averaged over `factor` × `factor` blocks. Leftover columns and rows at
    /// the right and bottom (fewer than `factor`) are dropped.
    ///
    /// A box leaves some detail above the working image's Nyquist frequency to fold back as
    /// texture that changes with the sub-pixel position. A tent twice as wide was tried: the
    /// frame-to-frame tracks got a little less noisy, the quads (fitted against the key frame)
    /// no better, and it reads twice the taps.
    ///
    /// Order of work, for speed (this reads every frame pixel of the region): a block's rows are
    /// summed along whole rows (contiguous, vectorisable), then each row of sums is reduced
    /// across.
    private static func luma(_ image: Image, factor f: Int, region: (x0: Int, y0: Int, x1: Int, y1: Int),
                             into plane: inout GrayPlane, scratch: inout [Float]) {
        let w = image.width, h = image.height
        let ww = w / f, wh = h / f
        plane.resize(width: ww, height: wh)
        plane.clear()
        guard region.x1 > region.x0, region.y1 > region.y0 else { return }
        // Frame columns the region covers.
        let c0 = region.x0 * f, c1 = region.x1 * f
        if scratch.count < w { scratch = [Float](repeating: 0, count: w) }
        let scale = 1 / Float(f * f)
        let kr = 0.299 * scale, kg = 0.587 * scale, kb = 0.114 * scale
        image.rgb.withUnsafeBufferPointer { rgb in
            scratch.withUnsafeMutableBufferPointer { scratch in
                plane.pixels.withUnsafeMutableBufferPointer { out in
                    let r = rgb.baseAddress!, g = r + w * h, b = g + w * h
                    let column = scratch.baseAddress!, o = out.baseAddress!
                    for j in region.y0..<region.y1 {
                        for x in c0..<c1 { column[x] = 0 }
                        for y in (j * f)..<(j * f + f) {
                            let rr = r + y * w, gr = g + y * w, br = b + y * w
                            for x in c0..<c1 { column[x] += kr * rr[x] + kg * gr[x] + kb * br[x] }
                        }
                        let row = o + j * ww
                        if f == 2 {
                            // The common case (640×480 input): a fixed pair the compiler can unroll.
                            for i in region.x0..<region.x1 { row[i] = column[2 * i] + column[2 * i + 1] }
                        } else {
                            for i in region.x0..<region.x1 {
                                var sum: Float = 0
                                for x in (i * f)..<(i * f + f) { sum += column[x] }
                                row[i] = sum
                            }
                        }
                    }
                }
            }
        }
    }

    /// 2 × 2 box reduction of `region` (in the reduced plane's pixels). Bouguet's description of
    /// the pyramidal tracker smooths with a [1/4 1/2 1/4] kernel before subsampling; the box is
    /// cheaper and the coarse levels only supply the starting displacement that level 0 refines.
    private static func halve(_ source: GrayPlane, region: (x0: Int, y0: Int, x1: Int, y1: Int), into plane: inout GrayPlane) {
        let sw = source.width
        let w = sw / 2, h = source.height / 2
        plane.resize(width: w, height: h)
        plane.clear()
        let x1 = min(region.x1, w), y1 = min(region.y1, h)
        guard x1 > region.x0, y1 > region.y0 else { return }
        source.pixels.withUnsafeBufferPointer { src in
            plane.pixels.withUnsafeMutableBufferPointer { out in
                let s = src.baseAddress!, o = out.baseAddress!
                for j in region.y0..<y1 {
                    let a = s + 2 * j * sw, b = a + sw, row = o + j * w
                    for i in region.x0..<x1 {
                        row[i] = 0.25 * (a[2 * i] + a[2 * i + 1] + b[2 * i] + b[2 * i + 1])
                    }
                }
            }
        }
    }
}
