import CKernels

/// A whole map kept on the host between the passes of tiled execution: [C][H][W], dense.
///
/// Intermediate activations are stored as 16-bit codes scaled per block (`Format.blocks16`):
/// each tile a pass writes (and each band an update rewrites) keeps, per channel, its minimum
/// and a step, and a value is `minimum + code * step`. Two bytes a value like fp16, but the
/// error is at most half a step, 1/131070 of the block's range, wherever the values sit. Raw
/// convolution outputs sit far from zero against their spread: stored as fp16 they moved the
/// final picture by up to 0.0057 (above 1/255) on a 1024x768 photo; as 16x16 scaled blocks, by
/// at most 4.6e-4 (mean 1e-5).
/// The input picture is kept as the 8- or 16-bit samples it was decoded from when that is
/// lossless (`Format.compact`), which reproduces its floats bit for bit from a quarter (a half)
/// of their memory.
final class TensorStore {
    enum Format {
        /// v = Float(sample) / 255 or / 65535: exactly the decoders' conversion.
        case unorm8, unorm16
        /// 16-bit codes with a minimum and a step per channel and block.
        case blocks16
        case float

        var bytes: Int {
            switch self {
            case .unorm8: 1
            case .unorm16, .blocks16: 2
            case .float: 4
            }
        }

        /// The smallest sample format that holds every value of `values` exactly, else float.
        static func compact(_ values: [Float]) -> Format {
            func holds(_ maximum: Float) -> Bool {
                values.withUnsafeBufferPointer { values in
                    for v in values where !(v >= 0 && v <= 1 && (v * maximum).rounded() / maximum == v) { return false }
                    return true
                }
            }
            return holds(255) ? .unorm8 : holds(65535) ? .unorm16 : .float
        }
    }

    /// Each block's minimum and step: blocks of `side` x `side` values from the map's origin,
    /// `rows` x `columns` of them per channel. Written concurrently, one block per writer.
    private final class Blocks {
        let side: Int
        let rows: Int
        let columns: Int
        let minimum: UnsafeMutablePointer<Float>
        let step: UnsafeMutablePointer<Float>

        init(side: Int, mapHeight: Int, mapWidth: Int, channels: Int) {
            self.side = side
            rows = (mapHeight + side - 1) / side
            columns = (mapWidth + side - 1) / side
            let count = max(1, channels * rows * columns)
            minimum = .allocate(capacity: count)
            minimum.initialize(repeating: 0, count: count)
            step = .allocate(capacity: count)
            step.initialize(repeating: 0, count: count)
        }

        deinit {
            minimum.deallocate()
            step.deallocate()
        }

        func index(_ c: Int, _ y: Int, _ x: Int) -> Int { (c * rows + y / side) * columns + x / side }
    }

    /// Block side of `blocks16` stores: small blocks keep each block's range (and so its step)
    /// tight; 16x16 blocks cost two floats per 256 codes (3%). With whole 512x512 tiles as
    /// blocks the worst pixel moved 1.3e-3 on a 1024x768 photo, with 16x16 blocks 3.5e-4.
    static let blockSide = 16

    /// Largest code of `blocks16`.
    private static let codeMaximum: Float = 65535

    let channels: Int
    let height: Int
    let width: Int
    let format: Format
    private let storage: UnsafeMutableRawPointer
    private let blocks: Blocks

    init(channels: Int, height: Int, width: Int, format: Format, name: String) throws {
        self.channels = channels
        self.height = height
        self.width = width
        self.format = format
        let bytes = channels * height * width * format.bytes
        storage = UnsafeMutableRawPointer(try CheckedAllocation.zeroed(bytes, of: UInt8.self, for: name).baseAddress!)
        blocks = Blocks(side: format == .blocks16 ? Self.blockSide : max(height, width, 1), mapHeight: height, mapWidth: width,
                        channels: format == .blocks16 ? channels : 0)
    }

    /// A picture's planes in `format`, which must hold them exactly (see `Format.compact`).
    convenience init(image: Image, format: Format, name: String) throws {
        precondition(format != .blocks16, "pictures are stored exactly")
        try self.init(channels: 3, height: image.height, width: image.width, format: format, name: name)
        image.rgb.withUnsafeBufferPointer { values in
            let count = values.count
            switch format {
            case .unorm8:
                let out = storage.assumingMemoryBound(to: UInt8.self)
                for i in 0..<count { out[i] = UInt8((values[i] * 255).rounded()) }
            case .unorm16:
                let out = storage.assumingMemoryBound(to: UInt16.self)
                for i in 0..<count { out[i] = UInt16((values[i] * 65535).rounded()) }
            case .float, .blocks16:
                storage.assumingMemoryBound(to: Float.self).update(from: values.baseAddress!, count: count)
            }
        }
    }

    deinit { storage.deallocate() }

    static func bytes(channels: Int, height: Int, width: Int, format: Format) -> Int {
        channels * height * width * format.bytes
    }

    private func offset(_ c: Int, _ y: Int, _ x: Int) -> Int { (c * height + y) * width + x }

    /// `count` values from flat index `index` (rows of one channel back to back), as floats;
    /// not for `blocks16`, whose blocks need coordinates.
    func load(_ index: Int, _ count: Int, into destination: UnsafeMutablePointer<Float>) {
        precondition(format != .blocks16)
        let c = index / (height * width), rest = index % (height * width)
        loadRow(c, rest / width, rest % width, count, into: destination)
    }

    /// Values [x, x + count) of row `y` of channel `c`, as floats.
    func loadRow(_ c: Int, _ y: Int, _ x: Int, _ count: Int, into destination: UnsafeMutablePointer<Float>) {
        let index = offset(c, y, x)
        switch format {
        case .unorm8:
            let samples = storage.assumingMemoryBound(to: UInt8.self) + index
            for i in 0..<count { destination[i] = Float(samples[i]) / 255 }
        case .unorm16:
            let samples = storage.assumingMemoryBound(to: UInt16.self) + index
            for i in 0..<count { destination[i] = Float(samples[i]) / 65535 }
        case .float:
            destination.update(from: storage.assumingMemoryBound(to: Float.self) + index, count: count)
        case .blocks16:
            let codes = storage.assumingMemoryBound(to: UInt16.self) + index
            var start = x
            while start < x + count {
                let end = min(x + count, (start / blocks.side + 1) * blocks.side)
                let block = blocks.index(c, y, start)
                let minimum = blocks.minimum[block], step = blocks.step[block]
                for i in (start - x)..<(end - x) { destination[i] = minimum + Float(codes[i]) * step }
                start = end
            }
        }
    }

    /// Stores `rows` x `columns` values of channel `c` (rows `stride` floats apart in `source`)
    /// at (`y`, `x`); for `blocks16` the region starts on a block boundary and each block it
    /// covers gets its minimum and step.
    private func save(_ source: UnsafePointer<Float>, rows: Int, columns: Int, stride: Int, channel c: Int, y: Int, x: Int) {
        switch format {
        case .float:
            let out = storage.assumingMemoryBound(to: Float.self)
            for row in 0..<rows { (out + offset(c, y + row, x)).update(from: source + row * stride, count: columns) }
        case .blocks16:
            precondition(y % blocks.side == 0 && x % blocks.side == 0, "regions start on block boundaries")
            let codes = storage.assumingMemoryBound(to: UInt16.self)
            for top in Swift.stride(from: 0, to: rows, by: blocks.side) {
                for left in Swift.stride(from: 0, to: columns, by: blocks.side) {
                    let bottom = Swift.min(rows, top + blocks.side), right = Swift.min(columns, left + blocks.side)
                    var low = Float.infinity, high = -Float.infinity
                    for row in top..<bottom {
                        let values = source + row * stride
                        for i in left..<right {
                            low = Swift.min(low, values[i])
                            high = Swift.max(high, values[i])
                        }
                    }
                    let range = high - low
                    let inverse: Float = range > 0 ? Self.codeMaximum / range : 0
                    let block = blocks.index(c, y + top, x + left)
                    blocks.minimum[block] = low
                    blocks.step[block] = range > 0 ? range / Self.codeMaximum : 0
                    for row in top..<bottom {
                        let values = source + row * stride, out = codes + offset(c, y + row, x)
                        for i in left..<right {
                            out[i] = UInt16(Swift.min(Self.codeMaximum, ((values[i] - low) * inverse).rounded()))
                        }
                    }
                }
            }
        case .unorm8, .unorm16:
            preconditionFailure("sample stores hold pictures; activations are written as blocks16 or float")
        }
    }

    /// The region as a dense plan tensor of `shape` (rows.count x columns.count, its plane
    /// stride), `floats` long. `reflecting`: rows and columns outside the map are reflected into
    /// it (a picture padded to the network's multiple of 4).
    func read(rows: Range<Int>, columns: Range<Int>, shape: ExecutionPlan.DenseShape, floats: Int, reflecting: Bool = false) -> [Float] {
        precondition(shape.channels == channels && shape.height == rows.count && shape.width == columns.count)
        let reflected = reflecting ? columns.map { ExecutionPlan.reflect($0, width) } : []
        let first = reflected.min() ?? 0, span = reflecting ? reflected.max()! - first + 1 : 0
        return [Float](unsafeUninitializedCapacity: floats) { buffer, count in
            let base = buffer.baseAddress!
            ParallelFor.ranges(channels * rows.count, grain: 16) { items in
                let row = UnsafeMutablePointer<Float>.allocate(capacity: max(span, 1))
                defer { row.deallocate() }
                for item in items {
                    let c = item / rows.count, y = item % rows.count
                    let out = base + c * shape.planeStride + y * shape.width
                    if reflecting {
                        self.loadRow(c, ExecutionPlan.reflect(rows.lowerBound + y, self.height), first, span, into: row)
                        for (x, column) in reflected.enumerated() { out[x] = row[column - first] }
                    } else {
                        self.loadRow(c, rows.lowerBound + y, columns.lowerBound, columns.count, into: out)
                    }
                }
            }
            // Alignment padding between planes: never read as data, but keep it defined.
            for c in 0..<channels {
                let used = c * shape.planeStride + rows.count * columns.count
                let end = c + 1 < channels ? (c + 1) * shape.planeStride : floats
                if end > used { (base + used).initialize(repeating: 0, count: end - used) }
            }
            count = floats
        }
    }

    /// Writes a dense plan tensor of `shape` at (`top`, `left`): one tile of a pass, whose tiles
    /// start on block boundaries (`TiledStylizer.tileSide` keeps sides multiples of
    /// `blockSide`).
    func write(_ tile: [Float], shape: ExecutionPlan.DenseShape, top: Int, left: Int) {
        precondition(shape.channels == channels && top + shape.height <= height && left + shape.width <= width)
        tile.withUnsafeBufferPointer { tile in
            ParallelFor.ranges(channels, grain: 1) { channels in
                for c in channels {
                    self.save(tile.baseAddress! + c * shape.planeStride, rows: shape.height, columns: shape.width,
                              stride: shape.width, channel: c, y: top, x: left)
                }
            }
        }
    }

    /// x = act(x * scale[c] + shift[c]) + (other ? other * otherScale[c] + otherShift[c] : 0)
    /// over the whole map, in bands of whole rows: the residual blocks' joins.
    func update(scale: [Float], shift: [Float], activation: Activation,
                adding other: TensorStore? = nil, otherScale: [Float] = [], otherShift: [Float] = []) {
        precondition(other == nil || (other!.channels == channels && other!.height == height && other!.width == width))
        // Bands of whole blocks' rows; each band is read before it is rewritten, by one item.
        let rowsPerBand = max(1, 16384 / width / Self.blockSide) * Self.blockSide
        let bandsPerPlane = (height + rowsPerBand - 1) / rowsPerBand
        ParallelFor.ranges(channels * bandsPerPlane, grain: 1) { items in
            let n = rowsPerBand * self.width
            let x = UnsafeMutablePointer<Float>.allocate(capacity: n), r = UnsafeMutablePointer<Float>.allocate(capacity: n)
            defer { x.deallocate(); r.deallocate() }
            for item in items {
                let c = item / bandsPerPlane
                let y0 = (item % bandsPerPlane) * rowsPerBand, y1 = min(self.height, y0 + rowsPerBand)
                let count = (y1 - y0) * self.width
                for y in y0..<y1 { self.loadRow(c, y, 0, self.width, into: x + (y - y0) * self.width) }
                var residual: UnsafePointer<Float>? = nil
                if let other {
                    for y in y0..<y1 { other.loadRow(c, y, 0, self.width, into: r + (y - y0) * self.width) }
                    gs_instance_norm_apply(r, Int64(count), otherScale[c], otherShift[c], 0, nil, r)
                    residual = UnsafePointer(r)
                }
                gs_instance_norm_apply(x, Int64(count), scale[c], shift[c], Int32(activation.rawValue), residual, x)
                self.save(x, rows: y1 - y0, columns: self.width, stride: self.width, channel: c, y: y0, x: 0)
            }
        }
    }

}
