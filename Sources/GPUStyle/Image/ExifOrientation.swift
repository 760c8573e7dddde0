import Foundation

/// EXIF orientation (TIFF tag 0x0112): how the stored pixels must be
/// transformed for display. Raw values 1...8.
enum ExifOrientation: Int, Sendable {
    case normal = 1, flipHorizontal, rotate180, flipVertical
    case transpose, rotate90Clockwise, transverse, rotate90CounterClockwise

    /// Reads the orientation from a JPEG's first APP1 "Exif" segment. Any
    /// malformed or missing data means `.normal`: a broken EXIF block should
    /// not make an otherwise good picture unreadable.
    static func fromJPEG(_ data: Data) -> ExifOrientation {
        // Index the Data directly: the metadata segments are a few KB at the
        // front of a file that may be megabytes long, so don't copy it.
        let bytes = data.startIndex == 0 ? data : Data(data)
        var offset = 2  // after SOI
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return .normal }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }  // no length
            if marker == 0xDA || marker == 0xD9 { return .normal }  // metadata ends at start of scan
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return .normal }
            if marker == 0xE1 {
                let payload = bytes[(offset + 4)..<(offset + 2 + length)]
                if payload.starts(with: Array("Exif\0\0".utf8)) { return fromTIFF(Array(payload.dropFirst(6))) }
            }
            offset += 2 + length
        }
        return .normal
    }

    /// Reads tag 0x0112 from IFD0 of a TIFF structure ("II" or "MM").
    static func fromTIFF(_ tiff: [UInt8]) -> ExifOrientation {
        guard tiff.count >= 8 else { return .normal }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .normal
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(littleEndian ? at : at + 2), let high = u16(littleEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return .normal }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard let tag = u16(entry) else { return .normal }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, u32(entry + 4) == 1, let value = u16(entry + 8) else { return .normal }
            return ExifOrientation(rawValue: value) ?? .normal
        }
        return .normal
    }

    /// Whether display width and height are the stored height and width.
    var swapsAxes: Bool { rawValue >= 5 }

    /// The stored pixel shown at display position (x, y), for a stored image
    /// of `width` x `height`.
    func source(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .normal: return (x, y)
        case .flipHorizontal: return (width - 1 - x, y)
        case .rotate180: return (width - 1 - x, height - 1 - y)
        case .flipVertical: return (x, height - 1 - y)
        case .transpose: return (y, x)
        case .rotate90Clockwise: return (y, height - 1 - x)
        case .transverse: return (width - 1 - y, height - 1 - x)
        case .rotate90CounterClockwise: return (width - 1 - y, x)
        }
    }
}

extension Image {
    /// The picture as it should be displayed given its EXIF orientation.
    func oriented(_ orientation: ExifOrientation) -> Image {
        if orientation == .normal { return self }
        let outWidth = orientation.swapsAxes ? height : width
        let outHeight = orientation.swapsAxes ? width : height
        let count = width * height
        // Precompute the source index of every output pixel once, then gather each plane.
        var sourceIndex = [Int](repeating: 0, count: count)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let s = orientation.source(x: x, y: y, width: width, height: height)
                sourceIndex[y * outWidth + x] = s.y * width + s.x
            }
        }
        func gather(_ plane: ArraySlice<Float>) -> [Float] {
            let base = plane.startIndex
            return sourceIndex.map { plane[base + $0] }
        }
        var rgb: [Float] = []
        rgb.reserveCapacity(3 * count)
        for c in 0..<3 { rgb += gather(self.rgb[(c * count)..<((c + 1) * count)]) }
        return Image(width: outWidth, height: outHeight, rgb: rgb, alpha: alpha.map { gather($0[...]) })
    }
}
