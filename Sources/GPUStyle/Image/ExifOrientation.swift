import Foundation

/// EXIF orientation (TIFF tag 0x0112): how the stored pixels must be
/// transformed for display. Raw values 1...8. The JPEG decoder hands over the
/// TIFF data of the first APP1 "Exif" segment (libjpeg's saved markers).
enum ExifOrientation: Int, Sendable {
    case normal = 1, flipHorizontal, rotate180, flipVertical
    case transpose, rotate90Clockwise, transverse, rotate90CounterClockwise

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
        var copy = self
        copy.orient(orientation)
        return copy
    }

    /// Applies `orientation` to the planes in place. Flips and the 180-degree turn swap pixel
    /// pairs within each plane (no extra memory); the four orientations that swap the axes
    /// copy one plane at a time and write it back transposed (4 bytes per pixel extra, not a
    /// second image). ImageReader's allocation probe counts that plane.
    mutating func orient(_ orientation: ExifOrientation) {
        if orientation == .normal { return }
        let width = width, height = height
        let outWidth = orientation.swapsAxes ? height : width
        let outHeight = orientation.swapsAxes ? width : height
        // Every orientation maps display (x, y) to a stored index linearly:
        // base + x * dx + y * dy.
        func index(_ point: (x: Int, y: Int)) -> Int { point.y * width + point.x }
        let base = index(orientation.source(x: 0, y: 0, width: width, height: height))
        let dx = index(orientation.source(x: 1, y: 0, width: width, height: height)) - base
        let dy = index(orientation.source(x: 0, y: 1, width: width, height: height)) - base
        func remap(_ plane: UnsafeMutableBufferPointer<Float>) {
            if orientation.swapsAxes {
                let stored = Array(plane)
                stored.withUnsafeBufferPointer { stored in
                    for y in 0..<outHeight {
                        var source = base + y * dy
                        for x in 0..<outWidth {
                            plane[y * outWidth + x] = stored[source]
                            source += dx
                        }
                    }
                }
            } else {
                // These are their own inverse: swap each pixel with its source once.
                for y in 0..<height {
                    for x in 0..<width {
                        let target = y * width + x, source = base + x * dx + y * dy
                        if target < source { plane.swapAt(target, source) }
                    }
                }
            }
        }
        let count = width * height
        rgb.withUnsafeMutableBufferPointer { planes in
            for c in 0..<3 {
                remap(UnsafeMutableBufferPointer(rebasing: planes[(c * count)..<((c + 1) * count)]))
            }
        }
        if alpha != nil { alpha!.withUnsafeMutableBufferPointer { remap($0) } }
        self.width = outWidth
        self.height = outHeight
    }
}
