import CKernels

/// A whole map kept on the host between the passes of tiled execution: [C][H][W], dense.
/// Intermediate activations are fp16 (half the memory; their rounding, 2^-11 relative, moves
/// the final picture far less than 1/255: see TiledStylizerTests). The input picture is kept as
/// the 8- or 16-bit samples it was decoded from when that is lossless (`Format.compact`), which
/// reproduces its floats bit for bit from a quarter (a half) of their memory.
final class TensorStore {
    enum Format {
        /// v = Float(sample) / 255 or / 65535: exactly the decoders' conversion.
        case unorm8, unorm16
        case half, float

        var bytes: Int {
            switch self {
            case .unorm8: 1
            case .unorm16, .half: 2
            case .float: 4
            }
        }

        /// The smallest format that holds every value of `values` exactly.
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

    let channels: Int
    let height: Int
    let width: Int
    let format: Format
    private let storage: UnsafeMutableRawPointer

    init(channels: Int, height: Int, width: Int, format: Format, name: String) throws {
        self.channels = channels
        self.height = height
        self.width = width
        self.format = format
        let bytes = channels * height * width * format.bytes
        storage = UnsafeMutableRawPointer(try CheckedAllocation.zeroed(bytes, of: UInt8.self, for: name).baseAddress!)
    }

    /// A picture's planes in `format` (which must hold them exactly, see `Format.compact`).
    convenience init(image: Image, format: Format, name: String) throws {
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
            case .half:
                gs_float_to_half(values.baseAddress!, Int64(count), storage.assumingMemoryBound(to: UInt16.self))
            case .float:
                storage.assumingMemoryBound(to: Float.self).update(from: values.baseAddress!, count: count)
            }
        }
    }

    deinit { storage.deallocate() }

    static func bytes(channels: Int, height: Int, width: Int, format: Format) -> Int {
        channels * height * width * format.bytes
    }

    private func offset(_ c: Int, _ y: Int, _ x: Int) -> Int { (c * height + y) * width + x }

    /// Converts `count` stored values at `index` to floats.
    func load(_ index: Int, _ count: Int, into destination: UnsafeMutablePointer<Float>) {
        switch format {
        case .unorm8:
            let samples = storage.assumingMemoryBound(to: UInt8.self) + index
            for i in 0..<count { destination[i] = Float(samples[i]) / 255 }
        case .unorm16:
            let samples = storage.assumingMemoryBound(to: UInt16.self) + index
            for i in 0..<count { destination[i] = Float(samples[i]) / 65535 }
        case .half:
            gs_half_to_float(storage.assumingMemoryBound(to: UInt16.self) + index, Int64(count), destination)
        case .float:
            destination.update(from: storage.assumingMemoryBound(to: Float.self) + index, count: count)
        }
    }

    private func save(_ source: UnsafePointer<Float>, _ count: Int, at index: Int) {
        switch format {
        case .half:
            gs_float_to_half(source, Int64(count), storage.assumingMemoryBound(to: UInt16.self) + index)
        case .float:
            (storage.assumingMemoryBound(to: Float.self) + index).update(from: source, count: count)
        case .unorm8, .unorm16:
            preconditionFailure("sample stores hold pictures; activations are written as half or float")
        }
    }

    /// Rows [y0, y1) x columns [x0, x1) of channel `c` into `destination` (row-major, `stride`
    /// floats apart), source rows and columns reflected into the map (the network's padding of
    /// a picture to a multiple of 4).
    func readReflected(channel c: Int, rows: Range<Int>, columns: Range<Int>, into destination: UnsafeMutablePointer<Float>,
                       stride: Int) {
        let reflectedColumns = columns.map { ExecutionPlan.reflect($0, width) }
        let first = reflectedColumns.min()!, span = reflectedColumns.max()! - first + 1
        let row = UnsafeMutablePointer<Float>.allocate(capacity: span)
        defer { row.deallocate() }
        for (y, sourceRow) in rows.enumerated() {
            load(offset(c, ExecutionPlan.reflect(sourceRow, height), first), span, into: row)
            let out = destination + y * stride
            for (x, column) in reflectedColumns.enumerated() { out[x] = row[column - first] }
        }
    }

    /// The region as a dense plan tensor of `shape` (rows.count x columns.count, its plane
    /// stride), `floats` long.
    func read(rows: Range<Int>, columns: Range<Int>, shape: ExecutionPlan.DenseShape, floats: Int) -> [Float] {
        precondition(shape.channels == channels && shape.height == rows.count && shape.width == columns.count)
        return [Float](unsafeUninitializedCapacity: floats) { buffer, count in
            let base = buffer.baseAddress!
            ParallelFor.ranges(channels * rows.count, grain: 16) { items in
                for item in items {
                    let c = item / rows.count, y = item % rows.count
                    self.load(self.offset(c, rows.lowerBound + y, columns.lowerBound), columns.count,
                              into: base + c * shape.planeStride + y * shape.width)
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

    /// Writes a dense plan tensor of `shape` to the region at (`top`, `left`).
    func write(_ tile: [Float], shape: ExecutionPlan.DenseShape, top: Int, left: Int) {
        precondition(shape.channels == channels && top + shape.height <= height && left + shape.width <= width)
        tile.withUnsafeBufferPointer { tile in
            ParallelFor.ranges(channels * shape.height, grain: 16) { items in
                for item in items {
                    let c = item / shape.height, y = item % shape.height
                    self.save(tile.baseAddress! + c * shape.planeStride + y * shape.width, shape.width,
                              at: self.offset(c, top + y, left))
                }
            }
        }
    }

    /// x = act(x * scale[c] + shift[c]) + (other ? other * otherScale[c] + otherShift[c] : 0)
    /// over the whole map, channel by channel in rows of floats: the residual blocks' joins.
    func update(scale: [Float], shift: [Float], activation: Activation,
                adding other: TensorStore? = nil, otherScale: [Float] = [], otherShift: [Float] = []) {
        precondition(other == nil || (other!.channels == channels && other!.height == height && other!.width == width))
        let rowsPerItem = max(1, 16384 / width)
        let itemsPerPlane = (height + rowsPerItem - 1) / rowsPerItem
        ParallelFor.ranges(channels * itemsPerPlane, grain: 1) { items in
            let n = rowsPerItem * self.width
            let x = UnsafeMutablePointer<Float>.allocate(capacity: n), r = UnsafeMutablePointer<Float>.allocate(capacity: n)
            defer { x.deallocate(); r.deallocate() }
            for item in items {
                let c = item / itemsPerPlane
                let y0 = (item % itemsPerPlane) * rowsPerItem, y1 = min(self.height, y0 + rowsPerItem)
                let index = self.offset(c, y0, 0), count = (y1 - y0) * self.width
                self.load(index, count, into: x)
                var residual: UnsafePointer<Float>? = nil
                if let other {
                    other.load(index, count, into: r)
                    gs_affine_activation(r, Int64(count), otherScale[c], otherShift[c], 0, nil, r)
                    residual = UnsafePointer(r)
                }
                gs_affine_activation(x, Int64(count), scale[c], shift[c], Int32(activation.rawValue), residual, x)
                self.save(x, count, at: index)
            }
        }
    }
}
