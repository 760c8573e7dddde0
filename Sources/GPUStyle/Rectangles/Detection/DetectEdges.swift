import CKernels
import Foundation

/// Gradients and thin edges of the working-resolution image: the pixel-parallel front of the
/// rectangle detector.
struct EdgeMap {
    let width: Int
    let height: Int
    /// Integer box-downscale factor from the input image.
    let scale: Int
    /// Gradient magnitude (Sobel of the blurred channels, /8 so a 0→1 step gives 0.5...1), of
    /// whichever channel (`DetectEdges.channelWeights`) changes most at the pixel.
    var magnitude: [Float]
    /// Sobel gradient components (same scale as `magnitude`).
    var gx: [Float]
    var gy: [Float]
    /// Non-maximum-suppressed magnitude: non-zero only on thin edges above the low threshold.
    var edges: [Float]
    /// Threshold above which an edge votes for lines.
    var strongThreshold: Float

    /// Working-image pixel centre → input-image pixel coordinates (centres at integers).
    func toImage(_ p: Point) -> Point {
        let s = Double(scale)
        return Point(x: (p.x + 0.5) * s - 0.5, y: (p.y + 0.5) * s - 0.5)
    }

    func toWorking(_ p: Point) -> Point {
        let s = Double(scale)
        return Point(x: (p.x + 0.5) / s - 0.5, y: (p.y + 0.5) / s - 0.5)
    }
}

enum DetectEdges {
    /// Most pixels detection works on: the image is box-downscaled by the smallest integer factor
    /// that brings it within this budget (refinement then works at full size). 640x360: a
    /// 1280x720 photo at half size, 640x480 at half size (the live pipeline's 10 Hz budget),
    /// 1920x1080 at a third. A frame's moulding 8 px wide at 1280x720 is 4 px at half size but
    /// under 3 at a third, where the blur merges its two edges. Measured on scenes the detector
    /// was not tuned on (two generator seeds, 60 pictures each), going from a 480-px long side
    /// (a third) to this budget (a half) found 44 -> 46 and 44 -> 49 pictures; it costs about
    /// twice the time at 1920x1080 and nothing at 640x480.
    static let workingPixels = 640 * 360

    /// The integer box-downscale factor for a width x height image.
    static func scale(width: Int, height: Int) -> Int {
        Image.boxFactor(width: width, height: height, maximumPixels: workingPixels)
    }

    /// The channels edges are looked for in, as weights of r, g, b: Rec. 601 luma, and two
    /// opponent-colour differences (red–green, green–blue). A picture can differ from its wall
    /// in hue more than in brightness (a brown photo on a purple wall); with luma alone such
    /// sides had too few edge pixels to be found (2 of the 40 committed scenes).
    static let channelWeights: [(r: Float, g: Float, b: Float)] = [(0.299, 0.587, 0.114), (0.5, -0.5, 0), (0, 0.5, -0.5)]

    static func run(_ image: Image) -> EdgeMap {
        let scale = scale(width: image.width, height: image.height)
        let w = image.width / scale, h = image.height / scale
        let channels = downscaledChannels(image, scale: scale, width: w, height: h)
        let blurred = channels.map { gaussian5($0, width: w, height: h) }
        var magnitude = [Float](repeating: 0, count: w * h)
        var gx = [Float](repeating: 0, count: w * h)
        var gy = [Float](repeating: 0, count: w * h)
        sobel(blurred, width: w, height: h, magnitude: &magnitude, gx: &gx, gy: &gy)
        let (low, high) = thresholds(magnitude)
        let edges = suppressNonMaxima(magnitude, gx, gy, width: w, height: h, low: low)
        return EdgeMap(width: w, height: h, scale: scale, magnitude: magnitude, gx: gx, gy: gy, edges: edges,
                       strongThreshold: high)
    }

    /// Each of `channelWeights`, averaged over scale x scale blocks, in one pass over the image.
    static func downscaledChannels(_ image: Image, scale: Int, width w: Int, height h: Int) -> [[Float]] {
        var luma = [Float](repeating: 0, count: w * h), redGreen = luma, greenBlue = luma
        let weights = channelWeights.flatMap { [$0.r, $0.g, $0.b] }
        image.rgb.withUnsafeBufferPointer { rgb in
            luma.withUnsafeMutableBufferPointer { luma in
                redGreen.withUnsafeMutableBufferPointer { redGreen in
                    greenBlue.withUnsafeMutableBufferPointer { greenBlue in
                        ParallelFor.ranges(h, grain: 16) { rows in
                            gs_edge_downscale_rows(rgb.baseAddress!, Int32(image.width), Int32(image.height), Int32(scale), weights,
                                                   luma.baseAddress!, redGreen.baseAddress!, greenBlue.baseAddress!, Int32(w),
                                                   Int32(rows.lowerBound), Int32(rows.upperBound))
                        }
                    }
                }
            }
        }
        return [luma, redGreen, greenBlue]
    }

    /// Separable [1 4 6 4 1]/16 blur (σ ≈ 1), borders clamped (C kernel, edges.c).
    static func gaussian5(_ input: [Float], width w: Int, height h: Int) -> [Float] {
        var temp = [Float](repeating: 0, count: w * h)
        var out = [Float](repeating: 0, count: w * h)
        input.withUnsafeBufferPointer { src in
            temp.withUnsafeMutableBufferPointer { tmp in
                ParallelFor.ranges(h, grain: 32) { rows in
                    gs_edge_blur_rows(src.baseAddress!, tmp.baseAddress!, Int32(w), Int32(rows.lowerBound), Int32(rows.upperBound))
                }
            }
        }
        temp.withUnsafeBufferPointer { tmp in
            out.withUnsafeMutableBufferPointer { dst in
                ParallelFor.ranges(h, grain: 32) { rows in
                    gs_edge_blur_columns(tmp.baseAddress!, dst.baseAddress!, Int32(w), Int32(h),
                                         Int32(rows.lowerBound), Int32(rows.upperBound))
                }
            }
        }
        return out
    }

    /// Sobel of each blurred channel; each pixel keeps the gradient of the channel whose
    /// magnitude is largest (the first one on ties). Rows in parallel, eight pixels per vector
    /// (C kernel, edges.c). The one-pixel border stays 0.
    static func sobel(_ channels: [[Float]], width w: Int, height h: Int, magnitude: inout [Float], gx: inout [Float], gy: inout [Float]) {
        precondition(channels.count == 3)
        channels[0].withUnsafeBufferPointer { c0 in
            channels[1].withUnsafeBufferPointer { c1 in
                channels[2].withUnsafeBufferPointer { c2 in
                    magnitude.withUnsafeMutableBufferPointer { mag in
                        gx.withUnsafeMutableBufferPointer { gxOut in
                            gy.withUnsafeMutableBufferPointer { gyOut in
                                ParallelFor.ranges(max(0, h - 2), grain: 16) { rows in
                                    gs_edge_sobel_rows(c0.baseAddress!, c1.baseAddress!, c2.baseAddress!, mag.baseAddress!,
                                                       gxOut.baseAddress!, gyOut.baseAddress!, Int32(w),
                                                       Int32(rows.lowerBound + 1), Int32(rows.upperBound + 1))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Low and high edge thresholds: a fixed floor (so flat or noisy images give few edges) and
    /// a share of the image's strongest gradients (so low-contrast photos still give edges).
    static func thresholds(_ magnitude: [Float]) -> (low: Float, high: Float) {
        var histogram = [Int](repeating: 0, count: 256)
        for m in magnitude { histogram[min(255, Int(m * 512))] += 1 }
        // The 90th percentile of all gradient magnitudes.
        let target = magnitude.count * 9 / 10
        var seen = 0, bin = 0
        while bin < 255 && seen + histogram[bin] < target { seen += histogram[bin]; bin += 1 }
        let high = max(Float(bin) / 512, 0.02)
        return (high * 0.4, high)
    }

    /// Keeps pixels whose magnitude is a maximum across the edge (Canny's thinning).
    static func suppressNonMaxima(_ magnitude: [Float], _ gx: [Float], _ gy: [Float], width w: Int, height h: Int, low: Float) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        let tan22 = Float(0.41421356), tan67 = Float(2.41421356)
        magnitude.withUnsafeBufferPointer { mag in
            gx.withUnsafeBufferPointer { gx in
                gy.withUnsafeBufferPointer { gy in
                    out.withUnsafeMutableBufferPointer { out in
                        for y in 2..<max(2, h - 2) {
                            for x in 2..<max(2, w - 2) {
                                let i = y * w + x
                                let m = mag[i]
                                guard m >= low else { continue }
                                // The neighbour across the edge: gradient direction quantised to
                                // 0°, 45°, 90° or 135° by comparing |gy| with |gx| tan(22.5°/67.5°).
                                let ax = abs(gx[i]), ay = abs(gy[i])
                                let offset: Int
                                if ay <= ax * tan22 {
                                    offset = 1
                                } else if ay >= ax * tan67 {
                                    offset = w
                                } else {
                                    offset = (gx[i] > 0) == (gy[i] > 0) ? w + 1 : w - 1
                                }
                                if m >= mag[i - offset] && m > mag[i + offset] { out[i] = m }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Whether an edge pixel's gradient (gx, gy, of length `magnitude`) is within 22.5° of the
    /// unit normal n, either sign (`alongCosine`): the pixel runs along a line with that normal.
    @inline(__always)
    static func isAlong(gx: Float, gy: Float, magnitude: Float, normal n: Point) -> Bool {
        let m = Double(magnitude)
        return m > 0 && abs(Double(gx) * n.x + Double(gy) * n.y) / m >= alongCosine
    }

    /// cos 22.5°: how far an edge pixel's gradient may turn from a line's normal (either sign)
    /// and still count as running along the line. A literal (the double nearest cos(π/8), what
    /// `cos(22.5 * .pi / 180)` gives) so per-pixel checks need no lazy global initialisation.
    static let alongCosine = 0.9238795325112867
}

extension EdgeMap {
    /// Whether pixel i is an edge pixel running along a line with unit normal n.
    @inline(__always)
    func runsAlong(_ i: Int, normal n: Point) -> Bool {
        edges[i] > 0 && DetectEdges.isAlong(gx: gx[i], gy: gy[i], magnitude: magnitude[i], normal: n)
    }

    /// The maps `runsAlong` reads, without the arrays' bounds checks and reference counting:
    /// for the loops that probe thousands of pixels per line (`DetectLines.measureSupport`,
    /// `refine`; 16 % less time than through the arrays).
    struct Pixels {
        let edges: UnsafeBufferPointer<Float>
        let magnitude: UnsafeBufferPointer<Float>
        let gx: UnsafeBufferPointer<Float>
        let gy: UnsafeBufferPointer<Float>

        /// `EdgeMap.runsAlong` on the buffers.
        @inline(__always)
        func runsAlong(_ i: Int, normal n: Point) -> Bool {
            edges[i] > 0 && DetectEdges.isAlong(gx: gx[i], gy: gy[i], magnitude: magnitude[i], normal: n)
        }
    }

    func withPixels<R>(_ body: (Pixels) -> R) -> R {
        edges.withUnsafeBufferPointer { edges in
            magnitude.withUnsafeBufferPointer { magnitude in
                gx.withUnsafeBufferPointer { gx in
                    gy.withUnsafeBufferPointer { gy in body(Pixels(edges: edges, magnitude: magnitude, gx: gx, gy: gy)) }
                }
            }
        }
    }

    /// Whether p may be a quad's corner: inside the map or at most
    /// `DetectionParameters.Quads.borderMargin` outside it (a picture cut by the border).
    func holdsCorner(_ p: Point) -> Bool {
        let margin = DetectionParameters.Quads.borderMargin
        return p.x >= -margin && p.y >= -margin && p.x <= Double(width - 1) + margin && p.y <= Double(height - 1) + margin
    }

    /// `coverage` of the segment p0→p1 by edge pixels running along it.
    @inline(__always)
    func sideCoverage(from p0: Point, to p1: Point, minimum: Double) -> Double {
        let d = (p1 - p0) * (1 / max(p0.distance(to: p1), 1e-9))
        let n = Point(x: -d.y, y: d.x)
        return coverage(from: p0, to: p1, across: n, minimum: minimum) { runsAlong($0, normal: n) }
    }
}
